CREATE INDEX "statement_lines_candidate_idx" ON "statement_lines" USING btree ("account_id","candidate_payin_id") WHERE "statement_lines"."status" in ('ready','proposed') and "statement_lines"."candidate_payin_id" is not null;--> statement-breakpoint
-- The reconciliation rollup's pay-in triggers, once a statement instead of once a row (as the pay-time
-- rollup's already are): a statement's batch of payments (a feed's 500 lines) was hundreds of upserts of
-- the same few rows; now one upsert of each (day, account, channel, currency) it touches, in key order.
-- The same figures: a paid pay-in with a receiving account counts on the day its statement line proves it,
-- else on its paid day, unproved (0017).
DROP TRIGGER payin_orders_reconciliation_insert ON payin_orders;
--> statement-breakpoint
DROP TRIGGER payin_orders_reconciliation_update ON payin_orders;
--> statement-breakpoint
DROP TRIGGER payin_orders_reconciliation_delete ON payin_orders;
--> statement-breakpoint
DROP FUNCTION reconciliation_payin_changed();
--> statement-breakpoint
DROP FUNCTION reconciliation_paid(payin_orders, integer);
--> statement-breakpoint
CREATE FUNCTION reconciliation_payins_apply(removed payin_orders[], added payin_orders[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO reconciliation_daily AS r (day, account_id, channel_id, currency, paid_count, paid_sum,
    unproved_count, unproved_sum, matched_count, matched_sum, unmatched_count, unmatched_sum)
  SELECT coalesce(l.day, (coalesce(o.paid_at, o.updated_at) AT TIME ZONE reconciliation_zone())::date),
    o.receiving_account_id, coalesce(o.channel_id, 0), o.currency,
    sum(o.dir)::int, sum(o.dir * coalesce(o.paid_amount, o.amount)),
    sum(CASE WHEN l.day IS NULL THEN o.dir ELSE 0 END)::int,
    sum(CASE WHEN l.day IS NULL THEN o.dir * coalesce(o.paid_amount, o.amount) ELSE 0 END),
    0, 0, 0, 0
  FROM (SELECT *, -1 AS dir FROM unnest(removed) UNION ALL SELECT *, 1 FROM unnest(added)) o
  LEFT JOIN statement_lines l ON l.payin_id = o.id
  WHERE o.status = 'paid' AND o.receiving_account_id IS NOT NULL
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (day, account_id, channel_id, currency) DO UPDATE SET
    paid_count = r.paid_count + excluded.paid_count, paid_sum = r.paid_sum + excluded.paid_sum,
    unproved_count = r.unproved_count + excluded.unproved_count, unproved_sum = r.unproved_sum + excluded.unproved_sum;
END $$;
--> statement-breakpoint
CREATE FUNCTION reconciliation_payins_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM reconciliation_payins_apply('{}',
    array(SELECT n::payin_orders FROM added n WHERE n.status = 'paid' AND n.receiving_account_id IS NOT NULL));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION reconciliation_payins_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM reconciliation_payins_apply(
    array(SELECT o::payin_orders FROM removed o WHERE o.status = 'paid' AND o.receiving_account_id IS NOT NULL),
    '{}');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION reconciliation_payins_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM reconciliation_payins_apply(
    array(SELECT o::payin_orders FROM removed o JOIN added n ON n.id = o.id
      WHERE (o.status = 'paid' OR n.status = 'paid')
        AND (o.receiving_account_id IS NOT NULL OR n.receiving_account_id IS NOT NULL)
        AND (o.status, o.paid_at, o.paid_amount, o.amount, o.receiving_account_id, o.channel_id, o.currency)
          IS DISTINCT FROM (n.status, n.paid_at, n.paid_amount, n.amount, n.receiving_account_id, n.channel_id, n.currency)),
    array(SELECT n::payin_orders FROM removed o JOIN added n ON n.id = o.id
      WHERE (o.status = 'paid' OR n.status = 'paid')
        AND (o.receiving_account_id IS NOT NULL OR n.receiving_account_id IS NOT NULL)
        AND (o.status, o.paid_at, o.paid_amount, o.amount, o.receiving_account_id, o.channel_id, o.currency)
          IS DISTINCT FROM (n.status, n.paid_at, n.paid_amount, n.amount, n.receiving_account_id, n.channel_id, n.currency)));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER payin_orders_reconciliation_insert AFTER INSERT ON payin_orders
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION reconciliation_payins_added();
--> statement-breakpoint
CREATE TRIGGER payin_orders_reconciliation_update AFTER UPDATE ON payin_orders
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION reconciliation_payins_changed();
--> statement-breakpoint
CREATE TRIGGER payin_orders_reconciliation_delete AFTER DELETE ON payin_orders
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION reconciliation_payins_removed();
--> statement-breakpoint
-- A line's move that changes nothing the rollup counts (a new line becoming an exception, ready or
-- proposed: unmatched before and after, on the same day and amount) is no longer passed on: a batch's
-- exceptions were 1,000 rows through the rollup's joins adding up to nothing.
CREATE OR REPLACE FUNCTION reconciliation_lines_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM reconciliation_lines(
    array(SELECT o::statement_lines FROM removed o JOIN added n ON n.id = o.id
      WHERE (o.status = 'matched', o.day, o.account_id, o.amount, o.direction, o.payin_id)
        IS DISTINCT FROM (n.status = 'matched', n.day, n.account_id, n.amount, n.direction, n.payin_id)),
    array(SELECT n::statement_lines FROM removed o JOIN added n ON n.id = o.id
      WHERE (o.status = 'matched', o.day, o.account_id, o.amount, o.direction, o.payin_id)
        IS DISTINCT FROM (n.status = 'matched', n.day, n.account_id, n.amount, n.direction, n.payin_id)));
  RETURN NULL;
END $$;
