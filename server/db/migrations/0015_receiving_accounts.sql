CREATE TABLE "account_holders" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"phone" text NOT NULL,
	"id_number" text NOT NULL,
	"commission_ppm" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "account_holders_status" CHECK ("account_holders"."status" in ('active','disabled')),
	CONSTRAINT "account_holders_commission" CHECK ("account_holders"."commission_ppm" between 0 and 1000000)
);
--> statement-breakpoint
CREATE TABLE "card_bindings" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"channel_id" integer NOT NULL,
	"weight" integer DEFAULT 100 NOT NULL,
	"merchant_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"active_from" integer,
	"active_to" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "card_bindings_account_channel_key" UNIQUE("account_id","channel_id"),
	CONSTRAINT "card_bindings_weight" CHECK ("card_bindings"."weight" between 1 and 10000),
	CONSTRAINT "card_bindings_hours" CHECK (("card_bindings"."active_from" is null) = ("card_bindings"."active_to" is null) and coalesce("card_bindings"."active_from", 0) between 0 and 1439 and coalesce("card_bindings"."active_to", 0) between 0 and 1439)
);
--> statement-breakpoint
CREATE TABLE "holder_numbers" (
	"id" serial PRIMARY KEY NOT NULL,
	"holder_id" integer NOT NULL,
	"kind" text NOT NULL,
	"value" text NOT NULL,
	"account_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "holder_numbers_value_key" UNIQUE("kind","value"),
	CONSTRAINT "holder_numbers_kind" CHECK ("holder_numbers"."kind" in ('phone','upi')),
	CONSTRAINT "holder_numbers_status" CHECK ("holder_numbers"."status" in ('active','disabled'))
);
--> statement-breakpoint
CREATE TABLE "receiving_account_days" (
	"account_id" integer NOT NULL,
	"day" date NOT NULL,
	"amount" bigint DEFAULT 0 NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "receiving_account_days_account_id_day_pk" PRIMARY KEY("account_id","day")
);
--> statement-breakpoint
CREATE TABLE "receiving_accounts" (
	"id" serial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"bank_name" text NOT NULL,
	"account_name" text NOT NULL,
	"account_number" text NOT NULL,
	"ifsc" text NOT NULL,
	"vpa" text,
	"daily_limit" bigint NOT NULL,
	"daily_count" integer,
	"min_amount" bigint,
	"max_amount" bigint,
	"holder_id" integer,
	"status" text DEFAULT 'active' NOT NULL,
	"last_known_balance" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "receiving_accounts_number_key" UNIQUE("ifsc","account_number"),
	CONSTRAINT "receiving_accounts_kind" CHECK ("receiving_accounts"."kind" in ('public','card')),
	CONSTRAINT "receiving_accounts_status" CHECK ("receiving_accounts"."status" in ('active','paused','frozen')),
	CONSTRAINT "receiving_accounts_holder" CHECK (("receiving_accounts"."kind" = 'card') = ("receiving_accounts"."holder_id" is not null)),
	CONSTRAINT "receiving_accounts_limits" CHECK ("receiving_accounts"."daily_limit" > 0 and ("receiving_accounts"."daily_count" is null or "receiving_accounts"."daily_count" > 0) and ("receiving_accounts"."min_amount" is null or "receiving_accounts"."min_amount" > 0) and ("receiving_accounts"."max_amount" is null or "receiving_accounts"."max_amount" >= coalesce("receiving_accounts"."min_amount", 1)))
);
--> statement-breakpoint
ALTER TABLE "payin_orders" ADD COLUMN "receiving_account_id" integer;--> statement-breakpoint
ALTER TABLE "payin_orders" ADD COLUMN "payer_utr" text;--> statement-breakpoint
ALTER TABLE "card_bindings" ADD CONSTRAINT "card_bindings_account_id_receiving_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."receiving_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "card_bindings" ADD CONSTRAINT "card_bindings_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "holder_numbers" ADD CONSTRAINT "holder_numbers_holder_id_account_holders_id_fk" FOREIGN KEY ("holder_id") REFERENCES "public"."account_holders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "receiving_account_days" ADD CONSTRAINT "receiving_account_days_account_id_receiving_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."receiving_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "receiving_accounts" ADD CONSTRAINT "receiving_accounts_holder_id_account_holders_id_fk" FOREIGN KEY ("holder_id") REFERENCES "public"."account_holders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "card_bindings_channel_idx" ON "card_bindings" USING btree ("channel_id");--> statement-breakpoint
CREATE INDEX "holder_numbers_holder_idx" ON "holder_numbers" USING btree ("holder_id");--> statement-breakpoint
CREATE INDEX "payin_orders_receiving_account_idx" ON "payin_orders" USING btree ("receiving_account_id","created_at" DESC NULLS FIRST) WHERE "payin_orders"."receiving_account_id" is not null;