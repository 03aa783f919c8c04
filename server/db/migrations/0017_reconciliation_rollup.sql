CREATE TABLE "reconciliation_daily" (
	"day" date NOT NULL,
	"account_id" integer NOT NULL,
	"channel_id" integer NOT NULL,
	"currency" text NOT NULL,
	"paid_count" integer DEFAULT 0 NOT NULL,
	"paid_sum" bigint DEFAULT 0 NOT NULL,
	"unproved_count" integer DEFAULT 0 NOT NULL,
	"unproved_sum" bigint DEFAULT 0 NOT NULL,
	"matched_count" integer DEFAULT 0 NOT NULL,
	"matched_sum" bigint DEFAULT 0 NOT NULL,
	"unmatched_count" integer DEFAULT 0 NOT NULL,
	"unmatched_sum" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "reconciliation_daily_day_account_id_channel_id_currency_pk" PRIMARY KEY("day","account_id","channel_id","currency")
);
--> statement-breakpoint
-- Reconciliation's rollup (server/modules/stat/account.ts) is kept by triggers, so that every path that
-- pays an order or writes, matches or dismisses a statement line keeps it in the same transaction.
-- Days are cut in the stored business time zone, as the other rollups' (server/lib/businessDay.ts).
-- Functions that write are PL/pgSQL, not SQL: their statements' plans are kept for the session.
CREATE FUNCTION reconciliation_add(d date, acc integer, chan integer, cur text, paid_n integer, paid_s bigint,
  unproved_n integer, unproved_s bigint, matched_n integer, matched_s bigint, unmatched_n integer, unmatched_s bigint)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO reconciliation_daily AS r (day, account_id, channel_id, currency, paid_count, paid_sum,
    unproved_count, unproved_sum, matched_count, matched_sum, unmatched_count, unmatched_sum)
  VALUES (d, acc, chan, cur, paid_n, paid_s, unproved_n, unproved_s, matched_n, matched_s, unmatched_n, unmatched_s)
  ON CONFLICT (day, account_id, channel_id, currency) DO UPDATE SET
    paid_count = r.paid_count + excluded.paid_count, paid_sum = r.paid_sum + excluded.paid_sum,
    unproved_count = r.unproved_count + excluded.unproved_count, unproved_sum = r.unproved_sum + excluded.unproved_sum,
    matched_count = r.matched_count + excluded.matched_count, matched_sum = r.matched_sum + excluded.matched_sum,
    unmatched_count = r.unmatched_count + excluded.unmatched_count, unmatched_sum = r.unmatched_sum + excluded.unmatched_sum;
END $$;
--> statement-breakpoint
CREATE FUNCTION reconciliation_zone() RETURNS text LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT value #>> '{}' FROM parameters WHERE key = 'order_stats_time_zone'), 'Asia/Kolkata')
$$;
--> statement-breakpoint
-- A paid pay-in with a receiving account counts (`sign` 1) or stops counting (-1) on the day the money
-- arrived: its statement line's day when a line proves it (a statement imported the next morning pays the
-- order then, for money of the day before), else its paid day, unproved.
CREATE FUNCTION reconciliation_paid(o payin_orders, sign integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  paid bigint := coalesce(o.paid_amount, o.amount);
  proved date;
BEGIN
  IF o.status <> 'paid' OR o.receiving_account_id IS NULL THEN RETURN; END IF;
  SELECT l.day INTO proved FROM statement_lines l WHERE l.payin_id = o.id;
  PERFORM reconciliation_add(
    coalesce(proved, (coalesce(o.paid_at, o.updated_at) AT TIME ZONE reconciliation_zone())::date),
    o.receiving_account_id, coalesce(o.channel_id, 0), o.currency, sign, sign * paid,
    CASE WHEN proved IS NULL THEN sign ELSE 0 END, CASE WHEN proved IS NULL THEN sign * paid ELSE 0 END,
    0, 0, 0, 0);
END $$;
--> statement-breakpoint
-- Statement lines count by the statement (a batch of an import is one call): the lines as they were
-- (`removed`) stop counting, the lines as they are (`added`) count: each credit on its day, matched to the
-- pay-in it paid (whose channel and currency it takes) or unmatched while open or dismissed; a line
-- pointing at a paid pay-in proves it: the order leaves its paid day, unproved, for the line's day. Rows
-- that net to nothing (an update that moved no figure) are not written.
CREATE FUNCTION reconciliation_lines(removed statement_lines[], added statement_lines[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO reconciliation_daily AS r (day, account_id, channel_id, currency, paid_count, paid_sum,
    unproved_count, unproved_sum, matched_count, matched_sum, unmatched_count, unmatched_sum)
  SELECT day, account_id, channel_id, currency, sum(paid_n), sum(paid_s), sum(unproved_n), sum(unproved_s),
    sum(matched_n), sum(matched_s), sum(unmatched_n), sum(unmatched_s)
  FROM (
    SELECT l.day, l.account_id, coalesce(o.channel_id, 0) AS channel_id, coalesce(o.currency, 'INR') AS currency,
      0 AS paid_n, 0::bigint AS paid_s, 0 AS unproved_n, 0::bigint AS unproved_s,
      CASE WHEN l.status = 'matched' THEN l.dir ELSE 0 END AS matched_n,
      CASE WHEN l.status = 'matched' THEN l.dir * l.amount ELSE 0 END AS matched_s,
      CASE WHEN l.status <> 'matched' THEN l.dir ELSE 0 END AS unmatched_n,
      CASE WHEN l.status <> 'matched' THEN l.dir * l.amount ELSE 0 END AS unmatched_s
    FROM (SELECT *, -1 AS dir FROM unnest(removed) UNION ALL SELECT *, 1 FROM unnest(added)) l
    LEFT JOIN payin_orders o ON o.id = l.payin_id AND l.status = 'matched'
    WHERE l.direction = 'credit' AND (l.status <> 'matched' OR o.id IS NOT NULL)
    UNION ALL
    -- Proved by the line: no longer on its paid day, unproved...
    SELECT (coalesce(o.paid_at, o.updated_at) AT TIME ZONE reconciliation_zone())::date, o.receiving_account_id,
      coalesce(o.channel_id, 0), o.currency, -l.dir, -l.dir * coalesce(o.paid_amount, o.amount),
      -l.dir, -l.dir * coalesce(o.paid_amount, o.amount), 0, 0, 0, 0
    FROM (SELECT payin_id, -1 AS dir FROM unnest(removed) UNION ALL SELECT payin_id, 1 FROM unnest(added)) l
    JOIN payin_orders o ON o.id = l.payin_id
    WHERE o.status = 'paid' AND o.receiving_account_id IS NOT NULL
    UNION ALL
    -- ...but on the line's day, proved.
    SELECT l.day, o.receiving_account_id, coalesce(o.channel_id, 0), o.currency,
      l.dir, l.dir * coalesce(o.paid_amount, o.amount), 0, 0, 0, 0, 0, 0
    FROM (SELECT payin_id, day, -1 AS dir FROM unnest(removed) UNION ALL SELECT payin_id, day, 1 FROM unnest(added)) l
    JOIN payin_orders o ON o.id = l.payin_id
    WHERE o.status = 'paid' AND o.receiving_account_id IS NOT NULL
  ) f
  GROUP BY 1, 2, 3, 4
  HAVING sum(paid_n) <> 0 OR sum(paid_s) <> 0 OR sum(unproved_n) <> 0 OR sum(unproved_s) <> 0
    OR sum(matched_n) <> 0 OR sum(matched_s) <> 0 OR sum(unmatched_n) <> 0 OR sum(unmatched_s) <> 0
  -- Rows locked in key order: two batches touching the same days wait for each other, never deadlock.
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (day, account_id, channel_id, currency) DO UPDATE SET
    paid_count = r.paid_count + excluded.paid_count, paid_sum = r.paid_sum + excluded.paid_sum,
    unproved_count = r.unproved_count + excluded.unproved_count, unproved_sum = r.unproved_sum + excluded.unproved_sum,
    matched_count = r.matched_count + excluded.matched_count, matched_sum = r.matched_sum + excluded.matched_sum,
    unmatched_count = r.unmatched_count + excluded.unmatched_count, unmatched_sum = r.unmatched_sum + excluded.unmatched_sum;
END $$;
--> statement-breakpoint
CREATE FUNCTION reconciliation_payin_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM reconciliation_paid(OLD, -1); END IF;
  IF TG_OP <> 'DELETE' THEN PERFORM reconciliation_paid(NEW, 1); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION reconciliation_lines_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM reconciliation_lines('{}', array(SELECT l::statement_lines FROM added l));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION reconciliation_lines_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM reconciliation_lines(array(SELECT l::statement_lines FROM removed l),
    array(SELECT l::statement_lines FROM added l));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION reconciliation_lines_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM reconciliation_lines(array(SELECT l::statement_lines FROM removed l), '{}');
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Pay-ins row by row, and only when a figure moves: a paid one with a receiving account.
CREATE TRIGGER payin_orders_reconciliation_insert AFTER INSERT ON payin_orders FOR EACH ROW
  WHEN (NEW.status = 'paid' AND NEW.receiving_account_id IS NOT NULL)
  EXECUTE FUNCTION reconciliation_payin_changed();
--> statement-breakpoint
CREATE TRIGGER payin_orders_reconciliation_update AFTER UPDATE ON payin_orders FOR EACH ROW
  WHEN ((OLD.status = 'paid' OR NEW.status = 'paid')
    AND (OLD.receiving_account_id IS NOT NULL OR NEW.receiving_account_id IS NOT NULL)
    AND (OLD.status, OLD.paid_at, OLD.paid_amount, OLD.amount, OLD.receiving_account_id, OLD.channel_id, OLD.currency)
      IS DISTINCT FROM (NEW.status, NEW.paid_at, NEW.paid_amount, NEW.amount, NEW.receiving_account_id, NEW.channel_id, NEW.currency))
  EXECUTE FUNCTION reconciliation_payin_changed();
--> statement-breakpoint
CREATE TRIGGER payin_orders_reconciliation_delete AFTER DELETE ON payin_orders FOR EACH ROW
  WHEN (OLD.status = 'paid' AND OLD.receiving_account_id IS NOT NULL)
  EXECUTE FUNCTION reconciliation_payin_changed();
--> statement-breakpoint
-- Statement lines by the statement: an import writes and matches them a batch at a time.
CREATE TRIGGER statement_lines_reconciliation_insert AFTER INSERT ON statement_lines
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION reconciliation_lines_added();
--> statement-breakpoint
CREATE TRIGGER statement_lines_reconciliation_update AFTER UPDATE ON statement_lines
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION reconciliation_lines_changed();
--> statement-breakpoint
CREATE TRIGGER statement_lines_reconciliation_delete AFTER DELETE ON statement_lines
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION reconciliation_lines_removed();
--> statement-breakpoint
-- The whole rollup from the orders and lines, in `zone` (the stored one when null): the backfill below,
-- and again when the business time zone changes (with the order statistics).
CREATE FUNCTION reconciliation_rebuild(zone text) RETURNS void LANGUAGE sql AS $$
  DELETE FROM reconciliation_daily;
  INSERT INTO reconciliation_daily (day, account_id, channel_id, currency, paid_count, paid_sum,
    unproved_count, unproved_sum, matched_count, matched_sum, unmatched_count, unmatched_sum)
  SELECT day, account_id, channel_id, currency, sum(paid_n), sum(paid_s), sum(unproved_n), sum(unproved_s),
    sum(matched_n), sum(matched_s), sum(unmatched_n), sum(unmatched_s)
  FROM (
    SELECT coalesce(l.day, (coalesce(o.paid_at, o.updated_at) AT TIME ZONE coalesce(zone, reconciliation_zone()))::date) AS day,
      o.receiving_account_id AS account_id, coalesce(o.channel_id, 0) AS channel_id, o.currency,
      1 AS paid_n, coalesce(o.paid_amount, o.amount) AS paid_s,
      CASE WHEN l.id IS NULL THEN 1 ELSE 0 END AS unproved_n,
      CASE WHEN l.id IS NULL THEN coalesce(o.paid_amount, o.amount) ELSE 0 END AS unproved_s,
      0 AS matched_n, 0 AS matched_s, 0 AS unmatched_n, 0 AS unmatched_s
    FROM payin_orders o LEFT JOIN statement_lines l ON l.payin_id = o.id
    WHERE o.status = 'paid' AND o.receiving_account_id IS NOT NULL
    UNION ALL
    SELECT l.day, l.account_id, coalesce(o.channel_id, 0), coalesce(o.currency, 'INR'),
      0, 0, 0, 0,
      CASE WHEN l.status = 'matched' THEN 1 ELSE 0 END, CASE WHEN l.status = 'matched' THEN l.amount ELSE 0 END,
      CASE WHEN l.status <> 'matched' THEN 1 ELSE 0 END, CASE WHEN l.status <> 'matched' THEN l.amount ELSE 0 END
    FROM statement_lines l LEFT JOIN payin_orders o ON o.id = l.payin_id AND l.status = 'matched'
    WHERE l.direction = 'credit' AND (l.status <> 'matched' OR o.id IS NOT NULL)
  ) f
  GROUP BY 1, 2, 3, 4
$$;
--> statement-breakpoint
SELECT reconciliation_rebuild(NULL);
