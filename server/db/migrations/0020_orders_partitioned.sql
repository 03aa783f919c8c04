-- Custom SQL migration file, put your code below! --
-- Pay-ins and payouts partitioned by month of creation (PARTITION BY RANGE (created_at), months in UTC),
-- so that old months can be detached for archive and every index is a month's (issue 16). Done by
-- building the partitioned tables beside the old ones, copying the rows, and dropping the old tables.
--
-- A unique index on a partitioned table must hold the partition key, so the primary key becomes
-- (id, created_at) and the unique numbers (order number, merchant order number, a pay-in's UTR) move to
-- key tables of their own, `payin_order_keys` and `payout_order_keys`, one row per order, kept by row
-- triggers on the orders. Their constraints carry the names the keys had on the orders tables, so a
-- duplicate fails as before (23505, `payin_orders_merchant_order_key`, `payin_orders_utr_key`...).
-- A detached month's key rows stay: its numbers stay taken.
--
-- The foreign key order_images.order_id -> payin_orders(id) cannot stay (the referenced key would have
-- to hold created_at): the upload route writes an image only for the order it has just read.
ALTER TABLE "order_images" DROP CONSTRAINT IF EXISTS "order_images_order_id_payin_orders_id_fk";
--> statement-breakpoint
-- Functions taking the old tables' row type: recreated below on the new one.
DROP FUNCTION pay_time_apply(payin_orders[], payin_orders[]);
--> statement-breakpoint
DROP FUNCTION reconciliation_paid(payin_orders, integer);
--> statement-breakpoint
ALTER TABLE "payin_orders" RENAME TO "payin_orders_unpartitioned";
--> statement-breakpoint
ALTER TABLE "payout_orders" RENAME TO "payout_orders_unpartitioned";
--> statement-breakpoint
-- The old tables' keys and indexes go first, so their names are free for the new tables.
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT c.conrelid::regclass AS tbl, c.conname FROM pg_constraint c
    WHERE c.conrelid IN ('payin_orders_unpartitioned'::regclass, 'payout_orders_unpartitioned'::regclass)
      AND c.contype IN ('p', 'u', 'f')
  LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.tbl, r.conname);
  END LOOP;
  FOR r IN SELECT i.indexrelid::regclass AS idx FROM pg_index i
    WHERE i.indrelid IN ('payin_orders_unpartitioned'::regclass, 'payout_orders_unpartitioned'::regclass)
  LOOP
    EXECUTE format('DROP INDEX %s', r.idx);
  END LOOP;
END $$;
--> statement-breakpoint
-- The same sequences keep numbering the ids (a sequence default: identity columns on partitioned tables
-- need PostgreSQL 17).
ALTER SEQUENCE "payin_orders_id_seq" OWNED BY NONE;
--> statement-breakpoint
ALTER SEQUENCE "payout_orders_id_seq" OWNED BY NONE;
--> statement-breakpoint
-- Columns in the old order (the row type the rollup triggers' functions read), defaults, not-null and
-- check constraints as they were.
CREATE TABLE "payin_orders" (LIKE "payin_orders_unpartitioned" INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
  PARTITION BY RANGE ("created_at");
--> statement-breakpoint
CREATE TABLE "payout_orders" (LIKE "payout_orders_unpartitioned" INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
  PARTITION BY RANGE ("created_at");
--> statement-breakpoint
ALTER SEQUENCE "payin_orders_id_seq" OWNED BY "payin_orders"."id";
--> statement-breakpoint
ALTER SEQUENCE "payout_orders_id_seq" OWNED BY "payout_orders"."id";
--> statement-breakpoint
ALTER TABLE "payin_orders" ADD CONSTRAINT "payin_orders_pkey" PRIMARY KEY ("id", "created_at");
--> statement-breakpoint
ALTER TABLE "payout_orders" ADD CONSTRAINT "payout_orders_pkey" PRIMARY KEY ("id", "created_at");
--> statement-breakpoint
ALTER TABLE "payin_orders" ADD CONSTRAINT "payin_orders_merchant_id_merchants_id_fk"
  FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id");
--> statement-breakpoint
ALTER TABLE "payin_orders" ADD CONSTRAINT "payin_orders_channel_id_channels_id_fk"
  FOREIGN KEY ("channel_id") REFERENCES "channels"("id");
--> statement-breakpoint
ALTER TABLE "payout_orders" ADD CONSTRAINT "payout_orders_merchant_id_merchants_id_fk"
  FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id");
--> statement-breakpoint
ALTER TABLE "payout_orders" ADD CONSTRAINT "payout_orders_channel_id_channels_id_fk"
  FOREIGN KEY ("channel_id") REFERENCES "channels"("id");
--> statement-breakpoint
-- The safety net: a row whose month has no partition (far past or future) still goes in.
CREATE TABLE "payin_orders_default" PARTITION OF "payin_orders" DEFAULT;
--> statement-breakpoint
CREATE TABLE "payout_orders_default" PARTITION OF "payout_orders" DEFAULT;
--> statement-breakpoint
-- The partitions of the months from `from_day`'s to `to_day`'s (inclusive), for both tables:
-- `payin_orders_pYYYY_MM`, bounds at midnight UTC of the first of the month. A month whose table exists
-- (attached, or detached and kept for archive) is left alone; a month some of whose rows already sit in
-- the default partition is skipped with a notice (creating it would fail; the rows stay, correct, in the
-- default partition). Returns the tables created. Called by the migration and by the daily job
-- (server/modules/orders/partitions.ts).
CREATE FUNCTION ensure_order_partitions(from_day date, to_day date) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  m date := date_trunc('month', from_day)::date;
  tbl text;
  part text;
  lo timestamptz;
  hi timestamptz;
  crowded boolean;
  made text[] := '{}';
BEGIN
  -- One caller at a time (every server runs the job): the next sees the tables the first made.
  PERFORM pg_advisory_xact_lock(hashtext('ensure_order_partitions'));
  WHILE m <= to_day LOOP
    lo := m::timestamp AT TIME ZONE 'UTC';
    hi := (m + interval '1 month')::timestamp AT TIME ZONE 'UTC';
    FOREACH tbl IN ARRAY ARRAY['payin_orders', 'payout_orders'] LOOP
      part := format('%s_p%s', tbl, to_char(m, 'YYYY_MM'));
      IF to_regclass(quote_ident(part)) IS NULL THEN
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE created_at >= $1 AND created_at < $2)', tbl || '_default')
          INTO crowded USING lo, hi;
        IF crowded THEN
          RAISE NOTICE 'ensure_order_partitions: % has rows in the default partition, not created', part;
        ELSE
          EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', part, tbl, lo, hi);
          made := made || part;
        END IF;
      END IF;
    END LOOP;
    m := (m + interval '1 month')::date;
  END LOOP;
  RETURN made;
END $$;
--> statement-breakpoint
-- Detaches the month of `month_day` from both tables for archive (`pg_dump -t payin_orders_p2026_01`, then
-- DROP TABLE when kept elsewhere). Its orders leave every list, lookup and report; their key rows stay, so
-- their numbers stay taken. Returns the tables detached. The rollups (order stats, reconciliation, pay
-- time) keep counting the month until rebuilt.
CREATE FUNCTION detach_order_month(month_day date) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  tbl text;
  part text;
  done text[] := '{}';
BEGIN
  FOREACH tbl IN ARRAY ARRAY['payin_orders', 'payout_orders'] LOOP
    part := format('%s_p%s', tbl, to_char(month_day, 'YYYY_MM'));
    IF EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass(quote_ident(part))
        AND inhparent = tbl::regclass) THEN
      EXECUTE format('ALTER TABLE %I DETACH PARTITION %I', tbl, part);
      done := done || part;
    END IF;
  END LOOP;
  RETURN done;
END $$;
--> statement-breakpoint
-- The months of the rows there are, and three months ahead.
SELECT ensure_order_partitions(
  least(current_date,
    (SELECT min(created_at) FROM payin_orders_unpartitioned)::date,
    (SELECT min(created_at) FROM payout_orders_unpartitioned)::date),
  (current_date + interval '3 months')::date);
--> statement-breakpoint
INSERT INTO "payin_orders" SELECT * FROM "payin_orders_unpartitioned";
--> statement-breakpoint
INSERT INTO "payout_orders" SELECT * FROM "payout_orders_unpartitioned";
--> statement-breakpoint
SELECT setval('payin_orders_id_seq', greatest((SELECT last_value FROM payin_orders_id_seq), (SELECT max(id) FROM payin_orders), 1));
--> statement-breakpoint
SELECT setval('payout_orders_id_seq', greatest((SELECT last_value FROM payout_orders_id_seq), (SELECT max(id) FROM payout_orders), 1));
--> statement-breakpoint
DROP TABLE "payin_orders_unpartitioned";
--> statement-breakpoint
DROP TABLE "payout_orders_unpartitioned";
--> statement-breakpoint
-- The indexes, declared on the parents: each partition has its own (the list's keyset indexes included).
CREATE INDEX "payin_orders_order_no_idx" ON "payin_orders" USING btree ("order_no");
--> statement-breakpoint
CREATE INDEX "payin_orders_utr_idx" ON "payin_orders" USING btree ("utr") WHERE "utr" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "payin_orders_receiving_account_idx" ON "payin_orders" USING btree ("receiving_account_id", "created_at" DESC NULLS FIRST) WHERE "receiving_account_id" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "payin_orders_payer_utr_idx" ON "payin_orders" USING btree ("payer_utr") WHERE "payer_utr" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "payin_orders_account_amount_idx" ON "payin_orders" USING btree ("receiving_account_id", "amount", "created_at") WHERE "receiving_account_id" IS NOT NULL AND "status" IN ('pending', 'unpaid', 'failed');
--> statement-breakpoint
CREATE INDEX "payin_orders_merchant_time_idx" ON "payin_orders" USING btree ("merchant_id", "created_at" DESC NULLS FIRST, "id" DESC NULLS FIRST);
--> statement-breakpoint
CREATE INDEX "payin_orders_time_idx" ON "payin_orders" USING btree ("created_at" DESC NULLS FIRST, "id" DESC NULLS FIRST);
--> statement-breakpoint
CREATE INDEX "payin_orders_merchant_status_time_idx" ON "payin_orders" USING btree ("merchant_id", "status", "created_at" DESC NULLS FIRST, "id" DESC NULLS FIRST);
--> statement-breakpoint
CREATE INDEX "payin_orders_pending_expiry_idx" ON "payin_orders" USING btree ("expires_at") WHERE "status" = 'pending';
--> statement-breakpoint
CREATE INDEX "payin_orders_merchant_order_no_c" ON "payin_orders" USING btree ("merchant_order_no" COLLATE "C");
--> statement-breakpoint
CREATE INDEX "payin_orders_channel_order_id_c" ON "payin_orders" USING btree ("channel_order_id" COLLATE "C");
--> statement-breakpoint
CREATE INDEX "payout_orders_merchant_time_idx" ON "payout_orders" USING btree ("merchant_id", "created_at" DESC NULLS FIRST, "id" DESC NULLS FIRST);
--> statement-breakpoint
CREATE INDEX "payout_orders_time_idx" ON "payout_orders" USING btree ("created_at" DESC NULLS FIRST, "id" DESC NULLS FIRST);
--> statement-breakpoint
CREATE INDEX "payout_orders_queue_idx" ON "payout_orders" USING btree ("next_attempt_at") WHERE "status" = 'queued';
--> statement-breakpoint
CREATE INDEX "payout_orders_processing_idx" ON "payout_orders" USING btree ("updated_at") WHERE "status" = 'processing';
--> statement-breakpoint
CREATE INDEX "payout_orders_order_no_c" ON "payout_orders" USING btree ("order_no" COLLATE "C");
--> statement-breakpoint
CREATE INDEX "payout_orders_merchant_order_no_c" ON "payout_orders" USING btree ("merchant_order_no" COLLATE "C");
--> statement-breakpoint
CREATE INDEX "payout_orders_channel_order_id_c" ON "payout_orders" USING btree ("channel_order_id" COLLATE "C");
--> statement-breakpoint
CREATE INDEX "payout_orders_utr_c" ON "payout_orders" USING btree ("utr" COLLATE "C");
--> statement-breakpoint
CREATE INDEX "payout_orders_attention_idx" ON "payout_orders" USING btree ("updated_at") WHERE "status" IN ('submitting', 'needs_review');
--> statement-breakpoint
-- The key tables: the unique numbers across every month, attached or detached.
CREATE TABLE "payin_order_keys" (
	"id" bigint PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"order_no" text COLLATE "C" NOT NULL,
	"merchant_id" integer NOT NULL,
	"merchant_order_no" text NOT NULL,
	"utr" text COLLATE "C",
	CONSTRAINT "payin_orders_order_no_key" UNIQUE("order_no"),
	CONSTRAINT "payin_orders_merchant_order_key" UNIQUE("merchant_id","merchant_order_no")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "payin_orders_utr_key" ON "payin_order_keys" USING btree ("utr") WHERE "payin_order_keys"."utr" is not null;
--> statement-breakpoint
CREATE TABLE "payout_order_keys" (
	"id" bigint PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"order_no" text NOT NULL,
	"merchant_id" integer NOT NULL,
	"merchant_order_no" text NOT NULL,
	CONSTRAINT "payout_orders_order_no_key" UNIQUE("order_no"),
	CONSTRAINT "payout_orders_merchant_order_key" UNIQUE("merchant_id","merchant_order_no")
);
--> statement-breakpoint
INSERT INTO "payin_order_keys" (id, created_at, order_no, merchant_id, merchant_order_no, utr)
  SELECT id, created_at, order_no, merchant_id, merchant_order_no, utr FROM "payin_orders";
--> statement-breakpoint
INSERT INTO "payout_order_keys" (id, created_at, order_no, merchant_id, merchant_order_no)
  SELECT id, created_at, order_no, merchant_id, merchant_order_no FROM "payout_orders";
--> statement-breakpoint
-- Kept by triggers: inserts and deletes by the statement (a batch is one query on the key table), an update
-- of a number row by row, BEFORE the update: a BEFORE UPDATE row trigger also fires when the update moves
-- the row to another month's partition (an AFTER UPDATE one does not: the move is a delete and an insert,
-- which fire no statement-level insert or delete trigger either). An insert's keys may be there already:
-- the creations claim them first (server/modules/payin/creation.ts, payout/service.ts) with the order's
-- id, so a row of the same id is brought to the order's values (a no-op then). A duplicate number fails
-- here, 23505 under the old constraint's name.
CREATE FUNCTION payin_order_keys_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO payin_order_keys AS k (id, created_at, order_no, merchant_id, merchant_order_no, utr)
  SELECT id, created_at, order_no, merchant_id, merchant_order_no, utr FROM added
  ON CONFLICT (id) DO UPDATE SET created_at = excluded.created_at, order_no = excluded.order_no,
    merchant_id = excluded.merchant_id, merchant_order_no = excluded.merchant_order_no, utr = excluded.utr
  WHERE (k.created_at, k.order_no, k.merchant_id, k.merchant_order_no, k.utr)
    IS DISTINCT FROM (excluded.created_at, excluded.order_no, excluded.merchant_id, excluded.merchant_order_no, excluded.utr);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION payin_order_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE payin_order_keys SET id = NEW.id, created_at = NEW.created_at, order_no = NEW.order_no,
    merchant_id = NEW.merchant_id, merchant_order_no = NEW.merchant_order_no, utr = NEW.utr
  WHERE id = OLD.id;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE FUNCTION payin_order_keys_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM payin_order_keys WHERE id IN (SELECT id FROM removed);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION payout_order_keys_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO payout_order_keys AS k (id, created_at, order_no, merchant_id, merchant_order_no)
  SELECT id, created_at, order_no, merchant_id, merchant_order_no FROM added
  ON CONFLICT (id) DO UPDATE SET created_at = excluded.created_at, order_no = excluded.order_no,
    merchant_id = excluded.merchant_id, merchant_order_no = excluded.merchant_order_no
  WHERE (k.created_at, k.order_no, k.merchant_id, k.merchant_order_no)
    IS DISTINCT FROM (excluded.created_at, excluded.order_no, excluded.merchant_id, excluded.merchant_order_no);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION payout_order_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE payout_order_keys SET id = NEW.id, created_at = NEW.created_at, order_no = NEW.order_no,
    merchant_id = NEW.merchant_id, merchant_order_no = NEW.merchant_order_no
  WHERE id = OLD.id;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE FUNCTION payout_order_keys_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM payout_order_keys WHERE id IN (SELECT id FROM removed);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER payin_orders_keys_insert AFTER INSERT ON payin_orders
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION payin_order_keys_added();
--> statement-breakpoint
CREATE TRIGGER payin_orders_keys_update BEFORE UPDATE ON payin_orders FOR EACH ROW
  WHEN ((OLD.id, OLD.created_at, OLD.order_no, OLD.merchant_id, OLD.merchant_order_no, OLD.utr)
    IS DISTINCT FROM (NEW.id, NEW.created_at, NEW.order_no, NEW.merchant_id, NEW.merchant_order_no, NEW.utr))
  EXECUTE FUNCTION payin_order_keys_changed();
--> statement-breakpoint
CREATE TRIGGER payin_orders_keys_delete AFTER DELETE ON payin_orders
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION payin_order_keys_removed();
--> statement-breakpoint
CREATE TRIGGER payout_orders_keys_insert AFTER INSERT ON payout_orders
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION payout_order_keys_added();
--> statement-breakpoint
CREATE TRIGGER payout_orders_keys_update BEFORE UPDATE ON payout_orders FOR EACH ROW
  WHEN ((OLD.id, OLD.created_at, OLD.order_no, OLD.merchant_id, OLD.merchant_order_no)
    IS DISTINCT FROM (NEW.id, NEW.created_at, NEW.order_no, NEW.merchant_id, NEW.merchant_order_no))
  EXECUTE FUNCTION payout_order_keys_changed();
--> statement-breakpoint
CREATE TRIGGER payout_orders_keys_delete AFTER DELETE ON payout_orders
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION payout_order_keys_removed();
--> statement-breakpoint
-- The rollups' functions and triggers (0017, 0019) on the new table, as they were. Created after the copy:
-- the rollups already count the copied rows.
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
CREATE TRIGGER payin_orders_pay_time_insert AFTER INSERT ON payin_orders
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION pay_time_payins_added();
--> statement-breakpoint
CREATE TRIGGER payin_orders_pay_time_update AFTER UPDATE ON payin_orders
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION pay_time_payins_changed();
--> statement-breakpoint
CREATE TRIGGER payin_orders_pay_time_delete AFTER DELETE ON payin_orders
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION pay_time_payins_removed();
--> statement-breakpoint
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
