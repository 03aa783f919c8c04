CREATE TABLE "ledger_daily" (
	"account_id" integer NOT NULL,
	"day" date NOT NULL,
	"ref_type" text NOT NULL,
	"kind" text NOT NULL,
	"amount" bigint NOT NULL,
	"postings" integer NOT NULL,
	CONSTRAINT "ledger_daily_account_id_day_ref_type_kind_pk" PRIMARY KEY("account_id","day","ref_type","kind")
);
--> statement-breakpoint
ALTER TABLE "ledger_daily" ADD CONSTRAINT "ledger_daily_account_id_ledger_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- The days of the postings already made, bucketed in the stored business time zone as the ledger
-- buckets new ones (server/lib/businessDay.ts).
INSERT INTO "ledger_daily" ("account_id", "day", "ref_type", "kind", "amount", "postings")
SELECT p."account_id",
  (p."at" AT TIME ZONE coalesce(
    (SELECT "value" #>> '{}' FROM "parameters" WHERE "key" = 'order_stats_time_zone'), 'Asia/Kolkata'))::date,
  e."ref_type", e."kind", sum(p."amount"), count(*)
FROM "postings" p JOIN "journal_entries" e ON e."id" = p."entry_id"
GROUP BY 1, 2, 3, 4;
