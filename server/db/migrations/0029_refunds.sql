-- Refunds of paid pay-ins (issue 30, docs/MONEY-BACK.md section 1): the refund record, the pay-in's refunded
-- amount kept at or under what was paid by the database, and the payout that carries a refund's money.
CREATE TABLE "refunds" (
	"id" serial PRIMARY KEY NOT NULL,
	"refund_no" text NOT NULL,
	"merchant_id" integer NOT NULL,
	"merchant_refund_no" text NOT NULL,
	"payin_id" bigint NOT NULL,
	"payin_created_at" timestamp with time zone NOT NULL,
	"order_no" text NOT NULL,
	"merchant_order_no" text NOT NULL,
	"currency" text NOT NULL,
	"amount" bigint NOT NULL,
	"status" text DEFAULT 'requested' NOT NULL,
	"reason" text NOT NULL,
	"account_name" text NOT NULL,
	"account_number" text NOT NULL,
	"ifsc" text NOT NULL,
	"source" text NOT NULL,
	"request_hash" text NOT NULL,
	"payout_id" bigint,
	"payout_created_at" timestamp with time zone,
	"failure_reason" text,
	"requested_by" integer,
	"approval_id" integer,
	"completed_at" timestamp with time zone,
	"response_snapshot" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "refunds_no_key" UNIQUE("refund_no"),
	CONSTRAINT "refunds_merchant_no_key" UNIQUE("merchant_id","merchant_refund_no"),
	CONSTRAINT "refunds_status" CHECK ("refunds"."status" in ('requested','processing','success','failed','rejected','cancelled')),
	CONSTRAINT "refunds_amount" CHECK ("refunds"."amount" > 0),
	CONSTRAINT "refunds_source" CHECK ("refunds"."source" in ('console','api'))
);
--> statement-breakpoint
ALTER TABLE "payin_orders" ADD COLUMN "refunded_amount" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "payout_orders" ADD COLUMN "refund_id" integer;--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "refunds_merchant_time_idx" ON "refunds" USING btree ("merchant_id","created_at" DESC NULLS FIRST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "refunds_time_idx" ON "refunds" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "refunds_payin_idx" ON "refunds" USING btree ("payin_id");--> statement-breakpoint
CREATE INDEX "refunds_payout_idx" ON "refunds" USING btree ("payout_id") WHERE "refunds"."payout_id" is not null;--> statement-breakpoint
ALTER TABLE "payin_orders" ADD CONSTRAINT "payin_orders_refunded" CHECK ("refunded_amount" >= 0 and "refunded_amount" <= coalesce("paid_amount", 0));