CREATE TABLE "approvals" (
	"id" serial PRIMARY KEY NOT NULL,
	"action" text NOT NULL,
	"ref_type" text NOT NULL,
	"ref_id" text NOT NULL,
	"merchant_id" integer,
	"currency" text NOT NULL,
	"amount" bigint NOT NULL,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"requested_by" integer NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_by" integer,
	"decided_at" timestamp with time zone,
	"decision_note" text,
	CONSTRAINT "approvals_status" CHECK ("approvals"."status" in ('pending','approved','rejected','cancelled')),
	CONSTRAINT "approvals_second_person" CHECK ("approvals"."decided_by" is null or "approvals"."decided_by" <> "approvals"."requested_by")
);
--> statement-breakpoint
CREATE TABLE "settlement_images" (
	"id" serial PRIMARY KEY NOT NULL,
	"settlement_id" integer,
	"path" text NOT NULL,
	"mime" text NOT NULL,
	"size" integer NOT NULL,
	"user_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settlements" (
	"id" serial PRIMARY KEY NOT NULL,
	"settlement_no" text NOT NULL,
	"wallet" text NOT NULL,
	"merchant_id" integer NOT NULL,
	"currency" text NOT NULL,
	"type" text NOT NULL,
	"amount" bigint NOT NULL,
	"audit_amount" bigint,
	"fee" bigint NOT NULL,
	"status" text DEFAULT 'to_be_confirmed' NOT NULL,
	"account_name" text,
	"card_number" text,
	"ifsc" text,
	"return_address" text,
	"price" numeric(18, 6),
	"usdt_amount" numeric(24, 6),
	"attachments" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"reference" text,
	"reason" text,
	"applied_by" integer,
	"confirmed_by" integer,
	"confirmed_at" timestamp with time zone,
	"completed_by" integer,
	"completed_at" timestamp with time zone,
	"failed_by" integer,
	"failed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "settlements_no_key" UNIQUE("settlement_no"),
	CONSTRAINT "settlements_status" CHECK ("settlements"."status" in ('to_be_confirmed','confirmed','settled','failed')),
	CONSTRAINT "settlements_wallet" CHECK ("settlements"."wallet" in ('collection','payout')),
	CONSTRAINT "settlements_type" CHECK ("settlements"."type" in ('bank','usdt')),
	CONSTRAINT "settlements_amounts" CHECK ("settlements"."amount" > 0 and "settlements"."fee" >= 0 and ("settlements"."audit_amount" is null or "settlements"."audit_amount" between 1 and "settlements"."amount")),
	CONSTRAINT "settlements_maker_checker" CHECK ("settlements"."completed_by" is null or "settlements"."completed_by" <> "settlements"."confirmed_by")
);
--> statement-breakpoint
CREATE TABLE "tn_lines" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"merchant_id" integer NOT NULL,
	"currency" text NOT NULL,
	"order_day" date NOT NULL,
	"due_day" date NOT NULL,
	"orders" integer DEFAULT 0 NOT NULL,
	"gross" bigint DEFAULT 0 NOT NULL,
	"fee" bigint DEFAULT 0 NOT NULL,
	"net" bigint DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"run_id" integer,
	"released_at" timestamp with time zone,
	CONSTRAINT "tn_lines_key" UNIQUE("merchant_id","currency","order_day","due_day"),
	CONSTRAINT "tn_lines_status" CHECK ("tn_lines"."status" in ('pending','released')),
	CONSTRAINT "tn_lines_days" CHECK ("tn_lines"."due_day" > "tn_lines"."order_day"),
	CONSTRAINT "tn_lines_figures" CHECK ("tn_lines"."orders" >= 0 and "tn_lines"."net" = "tn_lines"."gross" - "tn_lines"."fee")
);
--> statement-breakpoint
CREATE TABLE "tn_run_merchants" (
	"run_id" integer NOT NULL,
	"merchant_id" integer NOT NULL,
	"currency" text NOT NULL,
	"lines" integer DEFAULT 0 NOT NULL,
	"amount" bigint DEFAULT 0 NOT NULL,
	"outcome" text NOT NULL,
	"error" text,
	CONSTRAINT "tn_run_merchants_run_id_merchant_id_currency_pk" PRIMARY KEY("run_id","merchant_id","currency"),
	CONSTRAINT "tn_run_merchants_outcome" CHECK ("tn_run_merchants"."outcome" in ('released','failed'))
);
--> statement-breakpoint
CREATE TABLE "tn_runs" (
	"id" serial PRIMARY KEY NOT NULL,
	"day" date NOT NULL,
	"started_by" integer,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"merchants" integer DEFAULT 0 NOT NULL,
	"lines" integer DEFAULT 0 NOT NULL,
	"amount_released" bigint DEFAULT 0 NOT NULL,
	"outcome" text DEFAULT 'running' NOT NULL,
	"error" text,
	CONSTRAINT "tn_runs_outcome" CHECK ("tn_runs"."outcome" in ('running','succeeded','partial','failed'))
);
--> statement-breakpoint
CREATE TABLE "withdrawal_slip_lines" (
	"id" serial PRIMARY KEY NOT NULL,
	"slip_id" integer NOT NULL,
	"object_type" text NOT NULL,
	"object_id" bigint NOT NULL,
	"merchant_id" integer NOT NULL,
	"amount" bigint NOT NULL,
	"beneficiary_name" text NOT NULL,
	"account_number" text NOT NULL,
	"ifsc" text NOT NULL,
	"narration" text NOT NULL,
	"status" text DEFAULT 'to_be_withdrawn' NOT NULL,
	"reference" text,
	"decided_by" integer,
	"decided_at" timestamp with time zone,
	CONSTRAINT "withdrawal_slip_lines_status" CHECK ("withdrawal_slip_lines"."status" in ('to_be_withdrawn','withdrawn','defunct')),
	CONSTRAINT "withdrawal_slip_lines_object_type" CHECK ("withdrawal_slip_lines"."object_type" in ('settlement','payout')),
	CONSTRAINT "withdrawal_slip_lines_amount" CHECK ("withdrawal_slip_lines"."amount" > 0)
);
--> statement-breakpoint
CREATE TABLE "withdrawal_slips" (
	"id" serial PRIMARY KEY NOT NULL,
	"slip_no" text NOT NULL,
	"format" text NOT NULL,
	"status" text DEFAULT 'to_be_withdrawn' NOT NULL,
	"currency" text NOT NULL,
	"line_count" integer NOT NULL,
	"total" bigint NOT NULL,
	"file_name" text NOT NULL,
	"content" text NOT NULL,
	"created_by" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_by" integer,
	"decided_at" timestamp with time zone,
	CONSTRAINT "withdrawal_slips_no_key" UNIQUE("slip_no"),
	CONSTRAINT "withdrawal_slips_status" CHECK ("withdrawal_slips"."status" in ('to_be_withdrawn','withdrawn','defunct'))
);
--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "settlement_rate_ppm" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "settlement_fee" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "settlement_images" ADD CONSTRAINT "settlement_images_settlement_id_settlements_id_fk" FOREIGN KEY ("settlement_id") REFERENCES "public"."settlements"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "settlements" ADD CONSTRAINT "settlements_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tn_lines" ADD CONSTRAINT "tn_lines_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tn_run_merchants" ADD CONSTRAINT "tn_run_merchants_run_id_tn_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."tn_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "withdrawal_slip_lines" ADD CONSTRAINT "withdrawal_slip_lines_slip_id_withdrawal_slips_id_fk" FOREIGN KEY ("slip_id") REFERENCES "public"."withdrawal_slips"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "approvals_pending_ref_key" ON "approvals" USING btree ("ref_type","ref_id") WHERE "approvals"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "approvals_requested_idx" ON "approvals" USING btree ("requested_at" DESC NULLS FIRST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "settlement_images_settlement_idx" ON "settlement_images" USING btree ("settlement_id");--> statement-breakpoint
CREATE INDEX "settlements_merchant_idx" ON "settlements" USING btree ("merchant_id","wallet","created_at" DESC NULLS FIRST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "settlements_created_idx" ON "settlements" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "settlements_open_idx" ON "settlements" USING btree ("created_at","id") WHERE "settlements"."status" in ('to_be_confirmed','confirmed');--> statement-breakpoint
CREATE INDEX "tn_lines_due_idx" ON "tn_lines" USING btree ("due_day","merchant_id") WHERE "tn_lines"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "tn_lines_order_day_idx" ON "tn_lines" USING btree ("order_day","merchant_id");--> statement-breakpoint
CREATE INDEX "tn_runs_started_idx" ON "tn_runs" USING btree ("started_at" DESC NULLS FIRST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "tn_runs_job_day_key" ON "tn_runs" USING btree ("day") WHERE "tn_runs"."started_by" is null;--> statement-breakpoint
CREATE INDEX "withdrawal_slip_lines_slip_idx" ON "withdrawal_slip_lines" USING btree ("slip_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "withdrawal_slip_lines_live_key" ON "withdrawal_slip_lines" USING btree ("object_type","object_id") WHERE "withdrawal_slip_lines"."status" in ('to_be_withdrawn','withdrawn');--> statement-breakpoint
CREATE INDEX "withdrawal_slips_created_idx" ON "withdrawal_slips" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS LAST);--> statement-breakpoint
ALTER TABLE "merchants" ADD CONSTRAINT "merchants_settlement_fee" CHECK ("merchants"."settlement_rate_ppm" between 0 and 1000000 and "merchants"."settlement_fee" >= 0);