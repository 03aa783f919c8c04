CREATE TABLE "reserve_lines" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"merchant_id" integer NOT NULL,
	"currency" text NOT NULL,
	"release_day" date NOT NULL,
	"orders" integer DEFAULT 0 NOT NULL,
	"amount" bigint DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'held' NOT NULL,
	"run_id" integer,
	"released_at" timestamp with time zone,
	CONSTRAINT "reserve_lines_key" UNIQUE("merchant_id","currency","release_day"),
	CONSTRAINT "reserve_lines_status" CHECK ("reserve_lines"."status" in ('held','released')),
	CONSTRAINT "reserve_lines_figures" CHECK ("reserve_lines"."orders" >= 0 and "reserve_lines"."amount" >= 0)
);
--> statement-breakpoint
ALTER TABLE "tn_lines" DROP CONSTRAINT "tn_lines_figures";--> statement-breakpoint
ALTER TABLE "tn_lines" ADD COLUMN "withheld" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "reserve_bp" integer;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "reserve_days" integer;--> statement-breakpoint
ALTER TABLE "reserve_lines" ADD CONSTRAINT "reserve_lines_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reserve_lines_due_idx" ON "reserve_lines" USING btree ("release_day","merchant_id") WHERE "reserve_lines"."status" = 'held';--> statement-breakpoint
ALTER TABLE "tn_lines" ADD CONSTRAINT "tn_lines_figures" CHECK ("tn_lines"."orders" >= 0 and "tn_lines"."withheld" >= 0 and "tn_lines"."net" = "tn_lines"."gross" - "tn_lines"."fee" - "tn_lines"."withheld");--> statement-breakpoint
ALTER TABLE "merchants" ADD CONSTRAINT "merchants_reserve" CHECK (("merchants"."reserve_bp" is null) = ("merchants"."reserve_days" is null) and coalesce("merchants"."reserve_bp", 1) between 1 and 5000 and coalesce("merchants"."reserve_days", 1) between 1 and 180);