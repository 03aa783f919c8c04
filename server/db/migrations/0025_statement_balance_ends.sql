CREATE TABLE "statement_balance_ends" (
	"account_id" integer NOT NULL,
	"day" date NOT NULL,
	"balance" bigint NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "statement_balance_ends_account_id_day_balance_pk" PRIMARY KEY("account_id","day","balance")
);
--> statement-breakpoint
-- Each line with a balance: +1 at the balance after it, -1 at the balance before it; what does not cancel
-- within the day is kept (schema.ts `statementBalanceEnds`). Lines are never changed in their account,
-- day, amount, direction or balance once saved, so inserting and deleting are all there is to follow.
INSERT INTO statement_balance_ends (account_id, day, balance, n)
SELECT account_id, day, b, sum(n)::int FROM (
  SELECT account_id, day, balance AS b, 1 AS n FROM statement_lines WHERE balance IS NOT NULL
  UNION ALL
  SELECT account_id, day, balance - CASE WHEN direction = 'credit' THEN amount ELSE -amount END, -1
  FROM statement_lines WHERE balance IS NOT NULL
) e
GROUP BY 1, 2, 3 HAVING sum(n) <> 0;
--> statement-breakpoint
-- One function for both triggers: each names its transition table `lines`; a deleted line takes back
-- what it added.
CREATE FUNCTION statement_balance_ends_moved() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  sign integer := CASE TG_OP WHEN 'INSERT' THEN 1 ELSE -1 END;
BEGIN
  INSERT INTO statement_balance_ends AS s (account_id, day, balance, n)
  SELECT account_id, day, b, sum(n)::int FROM (
    SELECT account_id, day, balance AS b, sign AS n FROM lines WHERE balance IS NOT NULL
    UNION ALL
    SELECT account_id, day, balance - CASE WHEN direction = 'credit' THEN amount ELSE -amount END, -sign
    FROM lines WHERE balance IS NOT NULL
  ) e
  GROUP BY 1, 2, 3 HAVING sum(n) <> 0
  -- Rows locked in key order: two imports of one account's days wait for each other, never deadlock.
  ORDER BY 1, 2, 3
  ON CONFLICT (account_id, day, balance) DO UPDATE SET n = s.n + excluded.n;
  DELETE FROM statement_balance_ends s
  WHERE s.n = 0 AND (s.account_id, s.day) IN (SELECT DISTINCT account_id, day FROM lines);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER statement_lines_balance_ends_insert AFTER INSERT ON statement_lines
  REFERENCING NEW TABLE AS lines FOR EACH STATEMENT EXECUTE FUNCTION statement_balance_ends_moved();
--> statement-breakpoint
CREATE TRIGGER statement_lines_balance_ends_delete AFTER DELETE ON statement_lines
  REFERENCING OLD TABLE AS lines FOR EACH STATEMENT EXECUTE FUNCTION statement_balance_ends_moved();
