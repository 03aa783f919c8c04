CREATE TABLE "agent_commission_payments" (
	"id" serial PRIMARY KEY NOT NULL,
	"agent_id" integer NOT NULL,
	"currency" text NOT NULL,
	"amount" bigint NOT NULL,
	"reference" text NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"paid_by" integer NOT NULL,
	"entry_id" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_commission_payments_reference_key" UNIQUE("agent_id","reference"),
	CONSTRAINT "agent_commission_payments_amount" CHECK ("agent_commission_payments"."amount" > 0)
);
--> statement-breakpoint
CREATE TABLE "balance_adjustments" (
	"id" serial PRIMARY KEY NOT NULL,
	"merchant_id" integer NOT NULL,
	"wallet" text NOT NULL,
	"currency" text NOT NULL,
	"amount" bigint NOT NULL,
	"reason" text NOT NULL,
	"requested_by" integer NOT NULL,
	"approval_id" integer,
	"approved_by" integer,
	"entry_id" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "balance_adjustments_approval_key" UNIQUE("approval_id"),
	CONSTRAINT "balance_adjustments_wallet" CHECK ("balance_adjustments"."wallet" in ('collection_available','payout_available')),
	CONSTRAINT "balance_adjustments_amount" CHECK ("balance_adjustments"."amount" <> 0)
);
--> statement-breakpoint
CREATE TABLE "payin_pay_time_daily" (
	"day" date NOT NULL,
	"channel_id" integer NOT NULL,
	"bucket" integer NOT NULL,
	"orders" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "payin_pay_time_daily_day_channel_id_bucket_pk" PRIMARY KEY("day","channel_id","bucket")
);
--> statement-breakpoint
CREATE TABLE "system_memos" (
	"id" serial PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"body" text DEFAULT '' NOT NULL,
	"pinned" boolean DEFAULT false NOT NULL,
	"audience" text NOT NULL,
	"created_by" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "system_memos_audience" CHECK ("system_memos"."audience" in ('platform','merchants','everyone'))
);
--> statement-breakpoint
CREATE TABLE "telegram_bot" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"token_sealed" text NOT NULL,
	"updated_by" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "telegram_bot_one_row" CHECK ("telegram_bot"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE "telegram_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"group_id" integer NOT NULL,
	"alert" text NOT NULL,
	"dedupe_key" text NOT NULL,
	"text" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_error" text,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "telegram_deliveries_event_key" UNIQUE("group_id","dedupe_key"),
	CONSTRAINT "telegram_deliveries_status" CHECK ("telegram_deliveries"."status" in ('pending','sent','gave_up'))
);
--> statement-breakpoint
CREATE TABLE "telegram_groups" (
	"id" serial PRIMARY KEY NOT NULL,
	"chat_id" text NOT NULL,
	"name" text NOT NULL,
	"merchant_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"channel_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"alerts" jsonb NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "telegram_groups_chat_key" UNIQUE("chat_id"),
	CONSTRAINT "telegram_groups_status" CHECK ("telegram_groups"."status" in ('active','disabled'))
);
--> statement-breakpoint
ALTER TABLE "agent_commission_payments" ADD CONSTRAINT "agent_commission_payments_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "balance_adjustments" ADD CONSTRAINT "balance_adjustments_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telegram_deliveries" ADD CONSTRAINT "telegram_deliveries_group_id_telegram_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."telegram_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_commission_payments_agent_idx" ON "agent_commission_payments" USING btree ("agent_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "balance_adjustments_merchant_idx" ON "balance_adjustments" USING btree ("merchant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "balance_adjustments_created_idx" ON "balance_adjustments" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "system_memos_order_idx" ON "system_memos" USING btree ("pinned" DESC NULLS LAST,"created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "telegram_deliveries_due_idx" ON "telegram_deliveries" USING btree ("next_attempt_at") WHERE "telegram_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "telegram_deliveries_created_idx" ON "telegram_deliveries" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);