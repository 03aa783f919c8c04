CREATE TABLE "dispute_evidence" (
	"id" serial PRIMARY KEY NOT NULL,
	"dispute_id" integer NOT NULL,
	"note" text NOT NULL,
	"filename" text,
	"side" text NOT NULL,
	"path" text,
	"mime" text,
	"size" integer,
	"user_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "disputes" (
	"id" serial PRIMARY KEY NOT NULL,
	"dispute_no" text NOT NULL,
	"merchant_id" integer NOT NULL,
	"payin_id" bigint NOT NULL,
	"payin_created_at" timestamp with time zone NOT NULL,
	"order_no" text NOT NULL,
	"merchant_order_no" text NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"currency" text NOT NULL,
	"amount" bigint NOT NULL,
	"held_collection_available" bigint DEFAULT 0 NOT NULL,
	"held_payout_available" bigint DEFAULT 0 NOT NULL,
	"unheld_amount" bigint DEFAULT 0 NOT NULL,
	"deadline" timestamp with time zone NOT NULL,
	"owner_id" integer,
	"opened_side" text NOT NULL,
	"opened_by" integer NOT NULL,
	"reason" text NOT NULL,
	"outcome_reason" text,
	"decided_by" integer,
	"decided_at" timestamp with time zone,
	"refund_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "disputes_no_key" UNIQUE("dispute_no"),
	CONSTRAINT "disputes_status" CHECK ("disputes"."status" in ('open','won','lost','withdrawn')),
	CONSTRAINT "disputes_amount" CHECK ("disputes"."amount" > 0),
	CONSTRAINT "disputes_kind" CHECK ("disputes"."kind" in ('chargeback','complaint','wrong_payment')),
	CONSTRAINT "disputes_opened_side" CHECK ("disputes"."opened_side" in ('platform','merchant')),
	CONSTRAINT "disputes_hold" CHECK ("disputes"."held_collection_available" >= 0 and "disputes"."held_payout_available" >= 0 and "disputes"."unheld_amount" >= 0
        and "disputes"."held_collection_available" + "disputes"."held_payout_available" + "disputes"."unheld_amount" = "disputes"."amount")
);
--> statement-breakpoint
ALTER TABLE "dispute_evidence" ADD CONSTRAINT "dispute_evidence_dispute_id_disputes_id_fk" FOREIGN KEY ("dispute_id") REFERENCES "public"."disputes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "disputes" ADD CONSTRAINT "disputes_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dispute_evidence_dispute_idx" ON "dispute_evidence" USING btree ("dispute_id","id");--> statement-breakpoint
CREATE INDEX "disputes_merchant_time_idx" ON "disputes" USING btree ("merchant_id","created_at" DESC NULLS FIRST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "disputes_payin_idx" ON "disputes" USING btree ("payin_id");--> statement-breakpoint
CREATE INDEX "disputes_open_deadline_idx" ON "disputes" USING btree ("deadline") WHERE "disputes"."status" = 'open';