-- The blocklist joins the change feed (migration 0008): every signed pay-in creation and pay page poll
-- meets it, so the server keeps its live entries in memory while no change to them is announced
-- (server/modules/risk/rules.ts), instead of asking the database each time.
CREATE TRIGGER blocklist_entries_changes AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON blocklist_entries
  FOR EACH STATEMENT EXECUTE FUNCTION paygate_notify_change();
