-- The money session (issue 28, docs/SECURITY.md): until when one Google code stands in for the code of
-- queue decisions, per signed-in session; null when none is open.
ALTER TABLE "sessions" ADD COLUMN "money_until" timestamp with time zone;