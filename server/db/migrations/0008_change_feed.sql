-- The change feed (server/db/index.ts, ChangeFeed): every committed change to a table whose rows the
-- server keeps in memory (resolved sessions, gateway merchants and their routes) notifies
-- `paygate_changes` with the table's name, once per table and transaction.
CREATE OR REPLACE FUNCTION paygate_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('paygate_changes', TG_TABLE_NAME);
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Sessions: a new one is in no cache, and `last_seen_at` alone (moved at most every 30 s per session)
-- changes nothing a cache holds (a cached session is used only within 30 s of the value it read).
CREATE TRIGGER sessions_changes_update AFTER UPDATE ON sessions FOR EACH ROW
  WHEN ((to_jsonb(OLD) - 'last_seen_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_seen_at'))
  EXECUTE FUNCTION paygate_notify_change();
--> statement-breakpoint
CREATE TRIGGER sessions_changes_delete AFTER DELETE OR TRUNCATE ON sessions FOR EACH STATEMENT
  EXECUTE FUNCTION paygate_notify_change();
--> statement-breakpoint
-- Users: a new one is in no cache; `last_login_at` (moved at each sign-in) is in none either.
CREATE TRIGGER users_changes_update AFTER UPDATE ON users FOR EACH ROW
  WHEN ((to_jsonb(OLD) - 'last_login_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_login_at'))
  EXECUTE FUNCTION paygate_notify_change();
--> statement-breakpoint
CREATE TRIGGER users_changes_delete AFTER DELETE OR TRUNCATE ON users FOR EACH STATEMENT
  EXECUTE FUNCTION paygate_notify_change();
--> statement-breakpoint
CREATE TRIGGER roles_changes AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON roles FOR EACH STATEMENT
  EXECUTE FUNCTION paygate_notify_change();
--> statement-breakpoint
CREATE TRIGGER user_roles_changes AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON user_roles FOR EACH STATEMENT
  EXECUTE FUNCTION paygate_notify_change();
--> statement-breakpoint
CREATE TRIGGER parameters_changes AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON parameters FOR EACH STATEMENT
  EXECUTE FUNCTION paygate_notify_change();
--> statement-breakpoint
CREATE TRIGGER merchants_changes AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON merchants FOR EACH STATEMENT
  EXECUTE FUNCTION paygate_notify_change();
--> statement-breakpoint
CREATE TRIGGER merchant_channels_changes AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON merchant_channels FOR EACH STATEMENT
  EXECUTE FUNCTION paygate_notify_change();
--> statement-breakpoint
CREATE TRIGGER channels_changes AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON channels FOR EACH STATEMENT
  EXECUTE FUNCTION paygate_notify_change();
--> statement-breakpoint
CREATE TRIGGER agents_changes AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON agents FOR EACH STATEMENT
  EXECUTE FUNCTION paygate_notify_change();
