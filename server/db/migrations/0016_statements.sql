CREATE TABLE "statement_imports" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"key" text,
	"file_name" text NOT NULL,
	"format" text NOT NULL,
	"sha256" text NOT NULL,
	"size" integer NOT NULL,
	"content" "bytea" NOT NULL,
	"mapping" jsonb NOT NULL,
	"mapping_id" integer,
	"status" text DEFAULT 'running' NOT NULL,
	"line_count" integer NOT NULL,
	"processed" integer DEFAULT 0 NOT NULL,
	"new_count" integer DEFAULT 0 NOT NULL,
	"duplicate_count" integer DEFAULT 0 NOT NULL,
	"matched_count" integer DEFAULT 0 NOT NULL,
	"proposed_count" integer DEFAULT 0 NOT NULL,
	"exception_count" integer DEFAULT 0 NOT NULL,
	"gaps" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_by" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "statement_imports_status" CHECK ("statement_imports"."status" in ('running','done'))
);
--> statement-breakpoint
CREATE TABLE "statement_lines" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"import_id" integer NOT NULL,
	"row" integer NOT NULL,
	"day" date NOT NULL,
	"narration" text NOT NULL,
	"reference" text,
	"direction" text NOT NULL,
	"amount" bigint NOT NULL,
	"balance" bigint,
	"utr" text COLLATE "C",
	"dedupe_key" text NOT NULL,
	"status" text DEFAULT 'new' NOT NULL,
	"exception_kind" text,
	"payin_id" bigint,
	"candidate_payin_id" bigint,
	"slip_line_id" integer,
	"reason" text,
	"resolved_by" integer,
	"resolved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "statement_lines_dedupe_key" UNIQUE("account_id","dedupe_key"),
	CONSTRAINT "statement_lines_status" CHECK ("statement_lines"."status" in ('new','proposed','exception','matched','dismissed')),
	CONSTRAINT "statement_lines_direction" CHECK ("statement_lines"."direction" in ('credit','debit')),
	CONSTRAINT "statement_lines_amount" CHECK ("statement_lines"."amount" > 0),
	CONSTRAINT "statement_lines_exception_kind" CHECK (("statement_lines"."status" = 'exception') = ("statement_lines"."exception_kind" is not null) and coalesce("statement_lines"."exception_kind", 'unmatched') in ('amount_mismatch','ambiguous','unmatched')),
	CONSTRAINT "statement_lines_matched" CHECK ("statement_lines"."status" <> 'matched' or "statement_lines"."payin_id" is not null or "statement_lines"."slip_line_id" is not null)
);
--> statement-breakpoint
CREATE TABLE "statement_mappings" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"bank_name" text NOT NULL,
	"mapping" jsonb NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "statement_mappings_name_key" UNIQUE("name")
);
--> statement-breakpoint
ALTER TABLE "statement_imports" ADD CONSTRAINT "statement_imports_account_id_receiving_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."receiving_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "statement_imports" ADD CONSTRAINT "statement_imports_mapping_id_statement_mappings_id_fk" FOREIGN KEY ("mapping_id") REFERENCES "public"."statement_mappings"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "statement_lines" ADD CONSTRAINT "statement_lines_account_id_receiving_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."receiving_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "statement_lines" ADD CONSTRAINT "statement_lines_import_id_statement_imports_id_fk" FOREIGN KEY ("import_id") REFERENCES "public"."statement_imports"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "statement_lines" ADD CONSTRAINT "statement_lines_slip_line_id_withdrawal_slip_lines_id_fk" FOREIGN KEY ("slip_line_id") REFERENCES "public"."withdrawal_slip_lines"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "statement_imports_account_idx" ON "statement_imports" USING btree ("account_id","id" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "statement_imports_key" ON "statement_imports" USING btree ("key") WHERE "statement_imports"."key" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "statement_lines_payin_key" ON "statement_lines" USING btree ("payin_id") WHERE "statement_lines"."payin_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "statement_lines_slip_line_key" ON "statement_lines" USING btree ("slip_line_id") WHERE "statement_lines"."slip_line_id" is not null;--> statement-breakpoint
CREATE INDEX "statement_lines_account_day_idx" ON "statement_lines" USING btree ("account_id","day","id");--> statement-breakpoint
CREATE INDEX "statement_lines_open_idx" ON "statement_lines" USING btree ("created_at","id") WHERE "statement_lines"."status" in ('proposed','exception');--> statement-breakpoint
CREATE INDEX "statement_lines_utr_idx" ON "statement_lines" USING btree ("utr") WHERE "statement_lines"."utr" is not null;--> statement-breakpoint
CREATE INDEX "payin_orders_payer_utr_idx" ON "payin_orders" USING btree ("payer_utr") WHERE "payin_orders"."payer_utr" is not null;--> statement-breakpoint
CREATE INDEX "payin_orders_account_amount_idx" ON "payin_orders" USING btree ("receiving_account_id","amount","created_at") WHERE "payin_orders"."receiving_account_id" is not null and "payin_orders"."status" in ('pending','unpaid','failed');