-- The pay-time rollup (0019) kept one row a cell (day, channel, how long the payer took): every payment of
-- a channel within a few seconds of another met the same row, and its lock is held to the commit of the
-- paying transaction (the ledger, the callback, the order stats come after it), so payments queued there
-- (issue 31: 1.4 s a payment at 25 a second). A cell now has up to eight rows, one per slot, each
-- connection writing its own (`pg_backend_pid() % 8`); readers sum them. The rebuild writes slot 0.
ALTER TABLE "payin_pay_time_daily" ADD COLUMN "slot" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "payin_pay_time_daily" DROP CONSTRAINT "payin_pay_time_daily_day_channel_id_bucket_pk";--> statement-breakpoint
ALTER TABLE "payin_pay_time_daily" ADD CONSTRAINT "payin_pay_time_daily_day_channel_id_bucket_slot_pk" PRIMARY KEY("day","channel_id","bucket","slot");--> statement-breakpoint
CREATE OR REPLACE FUNCTION pay_time_apply(removed payin_orders[], added payin_orders[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO payin_pay_time_daily AS r (day, channel_id, bucket, slot, orders)
  SELECT (o.created_at AT TIME ZONE reconciliation_zone())::date, coalesce(o.channel_id, 0),
    width_bucket(extract(epoch FROM o.paid_at - o.created_at)::float8, pay_time_bounds()),
    pg_backend_pid() % 8, sum(o.dir)::int
  FROM (SELECT *, -1 AS dir FROM unnest(removed) UNION ALL SELECT *, 1 FROM unnest(added)) o
  WHERE o.status = 'paid' AND o.paid_at IS NOT NULL
  GROUP BY 1, 2, 3
  HAVING sum(o.dir) <> 0
  ORDER BY 1, 2, 3
  ON CONFLICT (day, channel_id, bucket, slot) DO UPDATE SET orders = r.orders + excluded.orders;
END $$;
