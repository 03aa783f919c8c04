-- Risk rules (issue 30 part 4, docs/MONEY-BACK.md section 4), written by hand (0029 is another part's; the
-- snapshot is regenerated when both are merged): the blocklist, the refusals counted by rule, a merchant's
-- velocity limits and the payer key its pay-ins are counted by.
CREATE TABLE "blocklist_entries" (
	"id" serial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"value" text NOT NULL,
	"reason" text NOT NULL,
	"ends_at" timestamp with time zone,
	"created_by" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"removed_by" integer,
	"removed_at" timestamp with time zone,
	CONSTRAINT "blocklist_entries_kind" CHECK ("blocklist_entries"."kind" in ('merchant','payer_phone','payer_email','payer_ip','payer_vpa')),
	CONSTRAINT "blocklist_entries_removed" CHECK (("blocklist_entries"."removed_by" is null) = ("blocklist_entries"."removed_at" is null))
);
--> statement-breakpoint
ALTER TABLE "blocklist_entries" ADD CONSTRAINT "blocklist_entries_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "blocklist_entries" ADD CONSTRAINT "blocklist_entries_removed_by_users_id_fk" FOREIGN KEY ("removed_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "blocklist_entries_live_key" ON "blocklist_entries" USING btree ("kind","value") WHERE "blocklist_entries"."removed_at" is null;--> statement-breakpoint
CREATE INDEX "blocklist_entries_time_idx" ON "blocklist_entries" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE TABLE "risk_refusals" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"rule" text NOT NULL,
	"merchant_id" integer NOT NULL,
	"order_no" text,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "risk_refusals_rule" CHECK ("risk_refusals"."rule" in ('merchant','payer_phone','payer_email','payer_ip','payer_vpa','velocity_count','velocity_amount'))
);
--> statement-breakpoint
ALTER TABLE "risk_refusals" ADD CONSTRAINT "risk_refusals_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "risk_refusals_at_idx" ON "risk_refusals" USING btree ("at","merchant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "risk_refusals_order_key" ON "risk_refusals" USING btree ("order_no","rule") WHERE "risk_refusals"."order_no" is not null;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "velocity_payins_per_day" integer;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "velocity_amount_per_day" bigint;--> statement-breakpoint
ALTER TABLE "merchants" ADD CONSTRAINT "merchants_velocity" CHECK (coalesce("merchants"."velocity_payins_per_day", 1) > 0 and coalesce("merchants"."velocity_amount_per_day", 1) > 0);--> statement-breakpoint
-- On the partitioned parent: every partition, attached or made later, gets the column and the index
-- (as migration 0020 declares its indexes). Null for the orders made before: nobody is counted backwards.
ALTER TABLE "payin_orders" ADD COLUMN "payer_key" text;--> statement-breakpoint
CREATE INDEX "payin_orders_payer_day_idx" ON "payin_orders" USING btree ("merchant_id","payer_key","created_at") WHERE "payin_orders"."payer_key" is not null;
