CREATE TABLE "device_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"ip" text DEFAULT '' NOT NULL,
	"user_agent" text DEFAULT '' NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payout_orders" DROP CONSTRAINT "payout_orders_status";--> statement-breakpoint
-- Lockout per (username, client address): the old key was the name alone.
ALTER TABLE "login_failures" ADD COLUMN "address" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "login_failures" DROP CONSTRAINT "login_failures_pkey";--> statement-breakpoint
ALTER TABLE "login_failures" ADD CONSTRAINT "login_failures_username_address_pk" PRIMARY KEY("username","address");--> statement-breakpoint
-- UTRs are compared trimmed and in upper case: stored that way from now on, earlier ones too.
UPDATE "payin_orders" SET "utr" = upper(btrim("utr")) WHERE "utr" IS NOT NULL AND "utr" <> upper(btrim("utr"));--> statement-breakpoint
UPDATE "payout_orders" SET "utr" = upper(btrim("utr")) WHERE "utr" IS NOT NULL AND "utr" <> upper(btrim("utr"));--> statement-breakpoint
UPDATE "simulator_transactions" SET "utr" = upper(btrim("utr")) WHERE "utr" IS NOT NULL AND "utr" <> upper(btrim("utr"));--> statement-breakpoint
-- Recharge references likewise; a reference that an earlier recharge of the merchant already carries
-- keeps its text with the recharge's id after it, so the unique index below can be built.
UPDATE "recharges" SET "reference" = upper(btrim("reference")) WHERE "reference" <> upper(btrim("reference"));--> statement-breakpoint
UPDATE "recharges" r SET "reference" = r."reference" || ' #' || r."id"
  WHERE r."reference" <> '' AND r."status" <> 'rejected' AND EXISTS (
    SELECT 1 FROM "recharges" o WHERE o."merchant_id" = r."merchant_id" AND o."reference" = r."reference"
      AND o."status" <> 'rejected' AND o."id" < r."id");--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "email_code_id" integer;--> statement-breakpoint
ALTER TABLE "device_tokens" ADD CONSTRAINT "device_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "device_tokens_user_idx" ON "device_tokens" USING btree ("user_id");--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD CONSTRAINT "mail_outbox_email_code_id_email_codes_id_fk" FOREIGN KEY ("email_code_id") REFERENCES "public"."email_codes"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "payout_orders_attention_idx" ON "payout_orders" USING btree ("updated_at") WHERE "payout_orders"."status" in ('submitting','needs_review');--> statement-breakpoint
CREATE UNIQUE INDEX "recharges_reference_key" ON "recharges" USING btree ("merchant_id","reference") WHERE "recharges"."reference" <> '' and "recharges"."status" <> 'rejected';--> statement-breakpoint
ALTER TABLE "payout_orders" ADD CONSTRAINT "payout_orders_status" CHECK ("payout_orders"."status" in ('queued','submitting','processing','needs_review','success','failed','creation_failed'));