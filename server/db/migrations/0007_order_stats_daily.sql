CREATE TABLE "order_stats_daily" (
	"day" date NOT NULL,
	"kind" text NOT NULL,
	"merchant_id" integer NOT NULL,
	"channel_id" integer NOT NULL,
	"currency" text NOT NULL,
	"finished_count" integer DEFAULT 0 NOT NULL,
	"success_count" integer DEFAULT 0 NOT NULL,
	"success_amount" bigint DEFAULT 0 NOT NULL,
	"success_fee" bigint DEFAULT 0 NOT NULL,
	"success_commission" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "order_stats_daily_day_kind_merchant_id_channel_id_currency_pk" PRIMARY KEY("day","kind","merchant_id","channel_id","currency"),
	CONSTRAINT "order_stats_daily_kind" CHECK ("order_stats_daily"."kind" in ('payin','payout'))
);
--> statement-breakpoint
CREATE INDEX "order_stats_daily_merchant_idx" ON "order_stats_daily" USING btree ("merchant_id","day");--> statement-breakpoint
CREATE INDEX "webhook_events_gave_up_idx" ON "webhook_events" USING btree ("merchant_id") WHERE "webhook_events"."status" = 'gave_up';--> statement-breakpoint
-- Fill from the orders already there, in the default business time zone (rebuildOrderStats does the same
-- for another zone at start-up, see server/modules/dashboard/stats.ts).
INSERT INTO "order_stats_daily" ("day", "kind", "merchant_id", "channel_id", "currency", "finished_count", "success_count", "success_amount", "success_fee", "success_commission")
SELECT ("created_at" AT TIME ZONE 'Asia/Kolkata')::date, 'payin', "merchant_id", coalesce("channel_id", 0), "currency",
  count(*), count(*) FILTER (WHERE "status" = 'paid'),
  coalesce(sum("amount") FILTER (WHERE "status" = 'paid'), 0),
  coalesce(sum("fee") FILTER (WHERE "status" = 'paid'), 0),
  coalesce(sum("agent_commission") FILTER (WHERE "status" = 'paid'), 0)
FROM "payin_orders" WHERE "status" IN ('paid', 'failed', 'unpaid', 'creation_failed')
GROUP BY 1, 3, 4, 5;--> statement-breakpoint
INSERT INTO "order_stats_daily" ("day", "kind", "merchant_id", "channel_id", "currency", "finished_count", "success_count", "success_amount", "success_fee", "success_commission")
SELECT ("created_at" AT TIME ZONE 'Asia/Kolkata')::date, 'payout', "merchant_id", coalesce("channel_id", 0), "currency",
  count(*), count(*) FILTER (WHERE "status" = 'success'),
  coalesce(sum("amount") FILTER (WHERE "status" = 'success'), 0),
  coalesce(sum("fee") FILTER (WHERE "status" = 'success'), 0),
  0
FROM "payout_orders" WHERE "status" IN ('success', 'failed', 'creation_failed')
GROUP BY 1, 3, 4, 5;--> statement-breakpoint
INSERT INTO "parameters" ("key", "value") VALUES ('order_stats_time_zone', '"Asia/Kolkata"')
ON CONFLICT ("key") DO UPDATE SET "value" = excluded."value";
