ALTER TABLE "webhook_events" DROP CONSTRAINT "webhook_events_order_type_key";--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "round" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE INDEX "payout_orders_processing_idx" ON "payout_orders" USING btree ("updated_at") WHERE "payout_orders"."status" = 'processing';--> statement-breakpoint
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_order_type_round_key" UNIQUE("order_type","order_id","type","round");