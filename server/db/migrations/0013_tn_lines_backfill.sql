-- T+N lines for a database whose pay-ins were paid under T+N before the lines existed: every paid
-- pay-in's net on a merchant's collection_pending account (its payin_paid entry), grouped by the business
-- day of the payment in the stored business time zone (as server/modules/settlement/tn.ts tags new ones),
-- due on that day plus the merchant's current cycle, at least one day (a merchant moved to D0 since still
-- gets its waiting money released by the next run). Nothing has ever left collection_pending before this
-- migration, so afterwards each merchant's collection_pending equals the sum of its pending lines.
INSERT INTO "tn_lines" ("merchant_id", "currency", "order_day", "due_day", "orders", "gross", "fee", "net")
SELECT t."merchant_id", t."currency", t."day", t."day" + t."days", count(*), sum(t."gross"), sum(t."gross" - t."net"), sum(t."net")
FROM (
  SELECT a."owner_id" AS "merchant_id", p."currency",
    (e."at" AT TIME ZONE coalesce(
      (SELECT "value" #>> '{}' FROM "parameters" WHERE "key" = 'order_stats_time_zone'), 'Asia/Kolkata'))::date AS "day",
    greatest(m."settlement_days", 1) AS "days",
    coalesce(o."paid_amount", o."amount") AS "gross",
    p."amount" AS "net"
  FROM "journal_entries" e
  JOIN "postings" p ON p."entry_id" = e."id"
  JOIN "ledger_accounts" a ON a."id" = p."account_id"
    AND a."owner_type" = 'merchant' AND a."kind" = 'collection_pending'
  JOIN "merchants" m ON m."id" = a."owner_id"
  JOIN "payin_orders" o ON o."id"::text = e."ref_id"
  WHERE e."kind" = 'payin_paid' AND e."ref_type" = 'payin'
) t
GROUP BY t."merchant_id", t."currency", t."day", t."days"
ON CONFLICT ("merchant_id", "currency", "order_day", "due_day") DO NOTHING;
