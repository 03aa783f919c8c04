-- Issue 26: statements read by themselves. Imports keep the mapping detection found, the bank, the totals,
-- the rows that were no transaction and the rows left out by the importer's choice; lines keep the
-- currency a feed states, and a line in another currency waits as an exception. Line identity becomes the
-- line's content and its place among equal lines of the day (parse.ts `dedupeKey`): the keys of the lines
-- kept are computed again here, the same SHA-256 of the same text, equal lines numbered by import and row.
ALTER TABLE "statement_lines" DROP CONSTRAINT "statement_lines_exception_kind";--> statement-breakpoint
ALTER TABLE "statement_imports" ADD COLUMN "detected" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "statement_imports" ADD COLUMN "bank" text;--> statement-breakpoint
ALTER TABLE "statement_imports" ADD COLUMN "totals" jsonb;--> statement-breakpoint
ALTER TABLE "statement_imports" ADD COLUMN "skipped" jsonb DEFAULT '{"count":0,"rows":[]}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "statement_imports" ADD COLUMN "error_rows" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "statement_lines" ADD COLUMN "currency" text;--> statement-breakpoint
ALTER TABLE "statement_lines" ADD CONSTRAINT "statement_lines_exception_kind" CHECK (("statement_lines"."status" = 'exception') = ("statement_lines"."exception_kind" is not null) and coalesce("statement_lines"."exception_kind", 'unmatched') in ('amount_mismatch','ambiguous','unmatched','currency'));--> statement-breakpoint
UPDATE "statement_lines" AS l SET "dedupe_key" = k."key"
FROM (
  SELECT "id", encode(sha256(convert_to(concat_ws(E'\x1f',
    to_char("day", 'YYYY-MM-DD'), "direction", "amount"::text, "narration", coalesce("reference", ''),
    coalesce("balance"::text, ''),
    (row_number() OVER (
      PARTITION BY "account_id", "day", "direction", "amount", "narration", coalesce("reference", ''),
        coalesce("balance"::text, '')
      ORDER BY "import_id", "row", "id") - 1)::text), 'UTF8')), 'hex') AS "key"
  FROM "statement_lines"
) AS k
WHERE k."id" = l."id";