-- Custom SQL migration file, put your code below! --
-- The channel statistics' median time to pay (server/modules/stat/channel.ts) reads `payin_pay_time_daily`:
-- paid pay-ins per business day of creation (cut in the stored business time zone, as the other rollups),
-- channel and bucket of seconds from creation to payment. Kept by statement-level triggers with transition
-- tables, so every path that pays or un-pays orders (one or a batch) keeps it in the same transaction.
-- The buckets' upper bounds are the contract's `payTimeBounds` (contract/endpoints/stat.ts; a test holds
-- the two equal): `width_bucket` gives 0 below the first bound, i from bound i on.
CREATE FUNCTION pay_time_bounds() RETURNS float8[] LANGUAGE sql IMMUTABLE AS $$
  SELECT ARRAY[15, 30, 45, 60, 90, 120, 180, 240, 300, 420, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200,
    10800, 14400, 21600, 43200, 86400]::float8[]
$$;
--> statement-breakpoint
-- The orders of a transition table (`dir` 1 added, -1 removed) that count: paid, with the time they were paid.
-- Rows that net to nothing (an update that left a paid order's day, channel and bucket as they were) are
-- not written; rows are locked in key order, so two batches never deadlock.
CREATE FUNCTION pay_time_apply(removed payin_orders[], added payin_orders[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO payin_pay_time_daily AS r (day, channel_id, bucket, orders)
  SELECT (o.created_at AT TIME ZONE reconciliation_zone())::date, coalesce(o.channel_id, 0),
    width_bucket(extract(epoch FROM o.paid_at - o.created_at)::float8, pay_time_bounds()), sum(o.dir)::int
  FROM (SELECT *, -1 AS dir FROM unnest(removed) UNION ALL SELECT *, 1 FROM unnest(added)) o
  WHERE o.status = 'paid' AND o.paid_at IS NOT NULL
  GROUP BY 1, 2, 3
  HAVING sum(o.dir) <> 0
  ORDER BY 1, 2, 3
  ON CONFLICT (day, channel_id, bucket) DO UPDATE SET orders = r.orders + excluded.orders;
END $$;
--> statement-breakpoint
CREATE FUNCTION pay_time_payins_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pay_time_apply('{}', array(SELECT o::payin_orders FROM added o WHERE o.status = 'paid'));
  RETURN NULL;
END $$;
--> statement-breakpoint
-- An update counts only the orders it moved in or out of the rollup (status, paid time, channel, creation).
CREATE FUNCTION pay_time_payins_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pay_time_apply(
    array(SELECT o::payin_orders FROM removed o JOIN added n ON n.id = o.id
      WHERE (o.status = 'paid' OR n.status = 'paid')
        AND (o.status, o.paid_at, o.channel_id, o.created_at) IS DISTINCT FROM (n.status, n.paid_at, n.channel_id, n.created_at)),
    array(SELECT n::payin_orders FROM removed o JOIN added n ON n.id = o.id
      WHERE (o.status = 'paid' OR n.status = 'paid')
        AND (o.status, o.paid_at, o.channel_id, o.created_at) IS DISTINCT FROM (n.status, n.paid_at, n.channel_id, n.created_at)));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION pay_time_payins_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pay_time_apply(array(SELECT o::payin_orders FROM removed o WHERE o.status = 'paid'), '{}');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER payin_orders_pay_time_insert AFTER INSERT ON payin_orders
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION pay_time_payins_added();
--> statement-breakpoint
CREATE TRIGGER payin_orders_pay_time_update AFTER UPDATE ON payin_orders
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION pay_time_payins_changed();
--> statement-breakpoint
CREATE TRIGGER payin_orders_pay_time_delete AFTER DELETE ON payin_orders
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION pay_time_payins_removed();
--> statement-breakpoint
-- The whole rollup from the orders in `zone` (the stored one when null): the backfill below, and again
-- with the order statistics when the business time zone changes (rebuildOrderStats).
CREATE FUNCTION pay_time_rebuild(zone text) RETURNS void LANGUAGE sql AS $$
  DELETE FROM payin_pay_time_daily;
  INSERT INTO payin_pay_time_daily (day, channel_id, bucket, orders)
  SELECT (created_at AT TIME ZONE coalesce(zone, reconciliation_zone()))::date, coalesce(channel_id, 0),
    width_bucket(extract(epoch FROM paid_at - created_at)::float8, pay_time_bounds()), count(*)::int
  FROM payin_orders WHERE status = 'paid' AND paid_at IS NOT NULL
  GROUP BY 1, 2, 3
$$;
--> statement-breakpoint
SELECT pay_time_rebuild(NULL);
