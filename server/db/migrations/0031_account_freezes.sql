-- Frozen receiving accounts (issue 30, docs/MONEY-BACK.md section 3): the bank's freeze and the merchants
-- whose money it holds, line by line. Written by hand (snapshots are regenerated at merge).
CREATE TABLE "account_freezes" (
	"id" serial PRIMARY KEY NOT NULL,
	"receiving_account_id" integer NOT NULL,
	"currency" text NOT NULL,
	"amount" bigint NOT NULL,
	"reference" text NOT NULL,
	"frozen_at" timestamp with time zone NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'frozen' NOT NULL,
	"unattributed" bigint NOT NULL,
	"held" bigint NOT NULL,
	"unheld" bigint NOT NULL,
	"released" bigint,
	"written_off" bigint,
	"settle_reason" text,
	"recorded_by" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_by" integer,
	"settled_at" timestamp with time zone,
	CONSTRAINT "account_freezes_status" CHECK ("account_freezes"."status" in ('frozen','settled')),
	CONSTRAINT "account_freezes_amounts" CHECK ("account_freezes"."amount" > 0 and "account_freezes"."unattributed" >= 0 and "account_freezes"."held" >= 0 and "account_freezes"."unheld" >= 0 and "account_freezes"."unattributed" + "account_freezes"."held" + "account_freezes"."unheld" = "account_freezes"."amount"),
	CONSTRAINT "account_freezes_settled" CHECK (("account_freezes"."status" = 'settled') = ("account_freezes"."released" is not null and "account_freezes"."written_off" is not null and "account_freezes"."settled_by" is not null and "account_freezes"."settled_at" is not null)),
	CONSTRAINT "account_freezes_outcome" CHECK ("account_freezes"."released" is null or ("account_freezes"."released" >= 0 and "account_freezes"."written_off" >= 0 and "account_freezes"."released" + "account_freezes"."written_off" = "account_freezes"."amount")),
	CONSTRAINT "account_freezes_two_people" CHECK ("account_freezes"."settled_by" is null or "account_freezes"."settled_by" <> "account_freezes"."recorded_by")
);
--> statement-breakpoint
CREATE TABLE "account_freeze_lines" (
	"id" serial PRIMARY KEY NOT NULL,
	"freeze_id" integer NOT NULL,
	"merchant_id" integer NOT NULL,
	"currency" text NOT NULL,
	"amount" bigint NOT NULL,
	"order_ids" bigint[] NOT NULL,
	"order_count" integer NOT NULL,
	"held_collection_available" bigint NOT NULL,
	"held_payout_available" bigint NOT NULL,
	"unheld" bigint NOT NULL,
	"released" bigint,
	"written_off" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "account_freeze_lines_merchant_key" UNIQUE("freeze_id","merchant_id"),
	CONSTRAINT "account_freeze_lines_amounts" CHECK ("account_freeze_lines"."amount" > 0 and "account_freeze_lines"."held_collection_available" >= 0 and "account_freeze_lines"."held_payout_available" >= 0 and "account_freeze_lines"."unheld" >= 0 and "account_freeze_lines"."held_collection_available" + "account_freeze_lines"."held_payout_available" + "account_freeze_lines"."unheld" = "account_freeze_lines"."amount" and "account_freeze_lines"."order_count" = cardinality("account_freeze_lines"."order_ids")),
	CONSTRAINT "account_freeze_lines_outcome" CHECK (("account_freeze_lines"."released" is null) = ("account_freeze_lines"."written_off" is null) and ("account_freeze_lines"."released" is null or ("account_freeze_lines"."released" >= 0 and "account_freeze_lines"."written_off" >= 0 and "account_freeze_lines"."released" + "account_freeze_lines"."written_off" = "account_freeze_lines"."amount")))
);
--> statement-breakpoint
ALTER TABLE "account_freeze_lines" ADD CONSTRAINT "account_freeze_lines_freeze_id_account_freezes_id_fk" FOREIGN KEY ("freeze_id") REFERENCES "public"."account_freezes"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "account_freezes" ADD CONSTRAINT "account_freezes_receiving_account_id_receiving_accounts_id_fk" FOREIGN KEY ("receiving_account_id") REFERENCES "public"."receiving_accounts"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "account_freeze_lines_merchant_idx" ON "account_freeze_lines" USING btree ("merchant_id");
--> statement-breakpoint
CREATE UNIQUE INDEX "account_freezes_open_key" ON "account_freezes" USING btree ("receiving_account_id") WHERE "account_freezes"."status" = 'frozen';
--> statement-breakpoint
CREATE INDEX "account_freezes_time_idx" ON "account_freezes" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);
