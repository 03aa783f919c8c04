CREATE TABLE "agents" (
	"id" serial PRIMARY KEY NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"commission_ppm" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agents_code_key" UNIQUE("code"),
	CONSTRAINT "agents_commission" CHECK ("agents"."commission_ppm" between 0 and 1000000),
	CONSTRAINT "agents_status" CHECK ("agents"."status" in ('active','disabled'))
);
--> statement-breakpoint
CREATE TABLE "channels" (
	"id" serial PRIMARY KEY NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"adapter" text NOT NULL,
	"credentials" text DEFAULT '' NOT NULL,
	"payin_cost_ppm" integer DEFAULT 0 NOT NULL,
	"payout_cost_ppm" integer DEFAULT 0 NOT NULL,
	"payout_cost_fixed" bigint DEFAULT 0 NOT NULL,
	"min_amount" bigint DEFAULT 100 NOT NULL,
	"max_amount" bigint DEFAULT 1000000000 NOT NULL,
	"weight" integer DEFAULT 100 NOT NULL,
	"supports_payin" boolean DEFAULT true NOT NULL,
	"supports_payout" boolean DEFAULT true NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "channels_code_key" UNIQUE("code"),
	CONSTRAINT "channels_limits" CHECK ("channels"."min_amount" > 0 and "channels"."max_amount" >= "channels"."min_amount"),
	CONSTRAINT "channels_weight" CHECK ("channels"."weight" between 0 and 10000),
	CONSTRAINT "channels_status" CHECK ("channels"."status" in ('active','disabled'))
);
--> statement-breakpoint
CREATE TABLE "gateway_nonces" (
	"merchant_id" integer NOT NULL,
	"nonce" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "gateway_nonces_merchant_id_nonce_pk" PRIMARY KEY("merchant_id","nonce")
);
--> statement-breakpoint
CREATE TABLE "journal_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"kind" text NOT NULL,
	"ref_type" text NOT NULL,
	"ref_id" text NOT NULL,
	"memo" text DEFAULT '' NOT NULL,
	"user_id" integer,
	CONSTRAINT "journal_entries_ref_key" UNIQUE("ref_type","ref_id","kind")
);
--> statement-breakpoint
CREATE TABLE "ledger_accounts" (
	"id" serial PRIMARY KEY NOT NULL,
	"owner_type" text NOT NULL,
	"owner_id" integer NOT NULL,
	"kind" text NOT NULL,
	"currency" text NOT NULL,
	"balance" bigint DEFAULT 0 NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	"may_be_negative" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ledger_accounts_owner_key" UNIQUE("owner_type","owner_id","kind","currency"),
	CONSTRAINT "ledger_accounts_non_negative" CHECK ("ledger_accounts"."may_be_negative" or "ledger_accounts"."balance" >= 0),
	CONSTRAINT "ledger_accounts_owner_type" CHECK ("ledger_accounts"."owner_type" in ('merchant','agent','platform'))
);
--> statement-breakpoint
CREATE TABLE "merchant_channels" (
	"merchant_id" integer NOT NULL,
	"channel_id" integer NOT NULL,
	"weight" integer DEFAULT 100 NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	CONSTRAINT "merchant_channels_merchant_id_channel_id_pk" PRIMARY KEY("merchant_id","channel_id"),
	CONSTRAINT "merchant_channels_weight" CHECK ("merchant_channels"."weight" between 0 and 10000)
);
--> statement-breakpoint
CREATE TABLE "order_images" (
	"id" serial PRIMARY KEY NOT NULL,
	"order_id" bigint NOT NULL,
	"path" text NOT NULL,
	"mime" text NOT NULL,
	"size" integer NOT NULL,
	"user_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payin_orders" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"order_no" text NOT NULL,
	"merchant_id" integer NOT NULL,
	"merchant_order_no" text NOT NULL,
	"channel_id" integer,
	"channel_order_id" text,
	"currency" text NOT NULL,
	"amount" bigint NOT NULL,
	"paid_amount" bigint,
	"fee" bigint DEFAULT 0 NOT NULL,
	"agent_commission" bigint DEFAULT 0 NOT NULL,
	"status" text NOT NULL,
	"push_status" text DEFAULT 'unpushed' NOT NULL,
	"utr" text,
	"notify_url" text NOT NULL,
	"return_url" text,
	"pay_url" text,
	"payer" jsonb,
	"request_hash" text NOT NULL,
	"request_snapshot" jsonb,
	"response_snapshot" jsonb,
	"paid_by" text,
	"failure_reason" text,
	"expires_at" timestamp with time zone NOT NULL,
	"paid_at" timestamp with time zone,
	"callback_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payin_orders_order_no_key" UNIQUE("order_no"),
	CONSTRAINT "payin_orders_merchant_order_key" UNIQUE("merchant_id","merchant_order_no"),
	CONSTRAINT "payin_orders_status" CHECK ("payin_orders"."status" in ('creating','pending','paid','failed','unpaid','creation_failed')),
	CONSTRAINT "payin_orders_push_status" CHECK ("payin_orders"."push_status" in ('unpushed','pushed')),
	CONSTRAINT "payin_orders_amounts" CHECK ("payin_orders"."amount" > 0 and "payin_orders"."fee" >= 0 and "payin_orders"."agent_commission" >= 0 and "payin_orders"."agent_commission" <= "payin_orders"."fee")
);
--> statement-breakpoint
CREATE TABLE "payout_orders" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"order_no" text NOT NULL,
	"merchant_id" integer NOT NULL,
	"merchant_order_no" text NOT NULL,
	"channel_id" integer,
	"channel_order_id" text,
	"currency" text NOT NULL,
	"amount" bigint NOT NULL,
	"fee" bigint NOT NULL,
	"status" text NOT NULL,
	"push_status" text DEFAULT 'unpushed' NOT NULL,
	"account_name" text NOT NULL,
	"account_number" text NOT NULL,
	"ifsc" text NOT NULL,
	"utr" text,
	"notify_url" text NOT NULL,
	"source" text NOT NULL,
	"request_hash" text NOT NULL,
	"request_snapshot" jsonb,
	"response_snapshot" jsonb,
	"failure_reason" text,
	"holds" integer DEFAULT 0 NOT NULL,
	"hold_open" boolean DEFAULT false NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"callback_at" timestamp with time zone,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payout_orders_order_no_key" UNIQUE("order_no"),
	CONSTRAINT "payout_orders_merchant_order_key" UNIQUE("merchant_id","merchant_order_no"),
	CONSTRAINT "payout_orders_status" CHECK ("payout_orders"."status" in ('queued','processing','success','failed','creation_failed')),
	CONSTRAINT "payout_orders_push_status" CHECK ("payout_orders"."push_status" in ('unpushed','pushed')),
	CONSTRAINT "payout_orders_amounts" CHECK ("payout_orders"."amount" > 0 and "payout_orders"."fee" >= 0)
);
--> statement-breakpoint
CREATE TABLE "postings" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"entry_id" bigint NOT NULL,
	"account_id" integer NOT NULL,
	"seq" bigint NOT NULL,
	"amount" bigint NOT NULL,
	"balance_before" bigint NOT NULL,
	"balance_after" bigint NOT NULL,
	"currency" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "postings_account_seq_key" UNIQUE("account_id","seq"),
	CONSTRAINT "postings_arithmetic" CHECK ("postings"."balance_after" = "postings"."balance_before" + "postings"."amount" and "postings"."amount" <> 0)
);
--> statement-breakpoint
CREATE TABLE "recharges" (
	"id" serial PRIMARY KEY NOT NULL,
	"merchant_id" integer NOT NULL,
	"currency" text NOT NULL,
	"amount" bigint NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"reference" text DEFAULT '' NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"created_by" integer,
	"decided_by" integer,
	"decided_at" timestamp with time zone,
	"reject_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "recharges_status" CHECK ("recharges"."status" in ('pending','confirmed','rejected')),
	CONSTRAINT "recharges_amount" CHECK ("recharges"."amount" > 0)
);
--> statement-breakpoint
CREATE TABLE "simulator_transactions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"channel_order_id" text NOT NULL,
	"kind" text NOT NULL,
	"order_no" text NOT NULL,
	"amount" bigint NOT NULL,
	"status" text NOT NULL,
	"utr" text,
	"account" text DEFAULT '' NOT NULL,
	"notified" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone,
	CONSTRAINT "simulator_transactions_channel_order_key" UNIQUE("channel_order_id")
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"event_id" bigint NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"manual" boolean DEFAULT false NOT NULL,
	"http_status" integer,
	"response" text DEFAULT '' NOT NULL,
	"duration_ms" integer DEFAULT 0 NOT NULL,
	"user_id" integer
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"message_id" text NOT NULL,
	"merchant_id" integer NOT NULL,
	"order_type" text NOT NULL,
	"order_id" bigint NOT NULL,
	"type" text NOT NULL,
	"url" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"locked_until" timestamp with time zone,
	"delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhook_events_message_key" UNIQUE("message_id"),
	CONSTRAINT "webhook_events_order_type_key" UNIQUE("order_type","order_id","type"),
	CONSTRAINT "webhook_events_status" CHECK ("webhook_events"."status" in ('pending','delivered','gave_up'))
);
--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "agent_id" integer;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "currency" text DEFAULT 'INR' NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "collection_rate_ppm" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "platform_fee" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "payout_rate_ppm" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "payout_fee" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "surcharge_ppm" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "exchange_rate" numeric(18, 6) DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "min_amount" bigint DEFAULT 100 NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "max_amount" bigint DEFAULT 100000000 NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "settlement_days" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "payout_ip_whitelist" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "callback_url" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "api_secret" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "webhook_secret" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "merchant_channels" ADD CONSTRAINT "merchant_channels_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merchant_channels" ADD CONSTRAINT "merchant_channels_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_images" ADD CONSTRAINT "order_images_order_id_payin_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."payin_orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payin_orders" ADD CONSTRAINT "payin_orders_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payin_orders" ADD CONSTRAINT "payin_orders_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payout_orders" ADD CONSTRAINT "payout_orders_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payout_orders" ADD CONSTRAINT "payout_orders_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "postings" ADD CONSTRAINT "postings_entry_id_journal_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."journal_entries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "postings" ADD CONSTRAINT "postings_account_id_ledger_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recharges" ADD CONSTRAINT "recharges_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_event_id_webhook_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."webhook_events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "gateway_nonces_expiry_idx" ON "gateway_nonces" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "order_images_order_idx" ON "order_images" USING btree ("order_id");--> statement-breakpoint
CREATE UNIQUE INDEX "payin_orders_utr_key" ON "payin_orders" USING btree ("utr") WHERE "payin_orders"."utr" is not null;--> statement-breakpoint
CREATE INDEX "payin_orders_merchant_time_idx" ON "payin_orders" USING btree ("merchant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "payin_orders_time_idx" ON "payin_orders" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "payin_orders_pending_expiry_idx" ON "payin_orders" USING btree ("expires_at") WHERE "payin_orders"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "payin_orders_order_no_c" ON "payin_orders" USING btree (order_no collate "C");--> statement-breakpoint
CREATE INDEX "payin_orders_merchant_order_no_c" ON "payin_orders" USING btree (merchant_order_no collate "C");--> statement-breakpoint
CREATE INDEX "payin_orders_channel_order_id_c" ON "payin_orders" USING btree (channel_order_id collate "C");--> statement-breakpoint
CREATE INDEX "payin_orders_utr_c" ON "payin_orders" USING btree (utr collate "C");--> statement-breakpoint
CREATE INDEX "payout_orders_merchant_time_idx" ON "payout_orders" USING btree ("merchant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "payout_orders_time_idx" ON "payout_orders" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "payout_orders_queue_idx" ON "payout_orders" USING btree ("next_attempt_at") WHERE "payout_orders"."status" = 'queued';--> statement-breakpoint
CREATE INDEX "payout_orders_order_no_c" ON "payout_orders" USING btree (order_no collate "C");--> statement-breakpoint
CREATE INDEX "payout_orders_merchant_order_no_c" ON "payout_orders" USING btree (merchant_order_no collate "C");--> statement-breakpoint
CREATE INDEX "payout_orders_channel_order_id_c" ON "payout_orders" USING btree (channel_order_id collate "C");--> statement-breakpoint
CREATE INDEX "payout_orders_utr_c" ON "payout_orders" USING btree (utr collate "C");--> statement-breakpoint
CREATE INDEX "postings_entry_idx" ON "postings" USING btree ("entry_id");--> statement-breakpoint
CREATE INDEX "postings_account_at_idx" ON "postings" USING btree ("account_id","at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "recharges_merchant_idx" ON "recharges" USING btree ("merchant_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "recharges_status_idx" ON "recharges" USING btree ("status","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "simulator_transactions_utr_key" ON "simulator_transactions" USING btree ("utr") WHERE "simulator_transactions"."utr" is not null;--> statement-breakpoint
CREATE INDEX "webhook_attempts_event_idx" ON "webhook_attempts" USING btree ("event_id","at");--> statement-breakpoint
CREATE INDEX "webhook_events_due_idx" ON "webhook_events" USING btree ("next_attempt_at") WHERE "webhook_events"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_events_merchant_idx" ON "webhook_events" USING btree ("merchant_id","status");--> statement-breakpoint
ALTER TABLE "merchants" ADD CONSTRAINT "merchants_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "merchants" ADD CONSTRAINT "merchants_amount_limits" CHECK ("merchants"."min_amount" > 0 and "merchants"."max_amount" >= "merchants"."min_amount");--> statement-breakpoint
ALTER TABLE "merchants" ADD CONSTRAINT "merchants_rates" CHECK ("merchants"."collection_rate_ppm" between 0 and 1000000 and "merchants"."payout_rate_ppm" between 0 and 1000000 and "merchants"."surcharge_ppm" between 0 and 1000000);--> statement-breakpoint
ALTER TABLE "merchants" ADD CONSTRAINT "merchants_fees" CHECK ("merchants"."platform_fee" >= 0 and "merchants"."payout_fee" >= 0);--> statement-breakpoint
ALTER TABLE "merchants" ADD CONSTRAINT "merchants_settlement_days" CHECK ("merchants"."settlement_days" between 0 and 30);