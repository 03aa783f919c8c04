-- List indexes in the order a plain `ORDER BY at DESC, id DESC` asks for (DESC means NULLS FIRST), so
-- every newest-first page is an index read. The columns are NOT NULL; only the spelling had to match.
DROP INDEX "operation_log_at_idx";--> statement-breakpoint
DROP INDEX "operation_log_merchant_idx";--> statement-breakpoint
DROP INDEX "payin_orders_merchant_time_idx";--> statement-breakpoint
DROP INDEX "payin_orders_time_idx";--> statement-breakpoint
DROP INDEX "payout_orders_merchant_time_idx";--> statement-breakpoint
DROP INDEX "payout_orders_time_idx";--> statement-breakpoint
DROP INDEX "postings_account_at_idx";--> statement-breakpoint
DROP INDEX "recharges_merchant_idx";--> statement-breakpoint
DROP INDEX "recharges_status_idx";--> statement-breakpoint
CREATE INDEX "operation_log_at_idx" ON "operation_log" USING btree ("at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "operation_log_merchant_idx" ON "operation_log" USING btree ("merchant_id","at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "payin_orders_merchant_time_idx" ON "payin_orders" USING btree ("merchant_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "payin_orders_time_idx" ON "payin_orders" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "payout_orders_merchant_time_idx" ON "payout_orders" USING btree ("merchant_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "payout_orders_time_idx" ON "payout_orders" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "postings_account_at_idx" ON "postings" USING btree ("account_id","at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "recharges_merchant_idx" ON "recharges" USING btree ("merchant_id","created_at" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "recharges_status_idx" ON "recharges" USING btree ("status","created_at" DESC NULLS FIRST);