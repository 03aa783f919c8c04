-- The operation log is evidence: rows are written once and never changed or removed.
CREATE OR REPLACE FUNCTION operation_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'operation_log is append-only' USING ERRCODE = 'insufficient_privilege';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER operation_log_no_update BEFORE UPDATE OR DELETE ON operation_log
  FOR EACH ROW EXECUTE FUNCTION operation_log_append_only();
--> statement-breakpoint
CREATE TRIGGER operation_log_no_truncate BEFORE TRUNCATE ON operation_log
  FOR EACH STATEMENT EXECUTE FUNCTION operation_log_append_only();
