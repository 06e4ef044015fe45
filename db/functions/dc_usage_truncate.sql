-- A TRUNCATE of tasks fires no row trigger (dc_usage_apply.sql): the kept usage goes with the rows
-- it was counted from, as the task counts do (dc_task_counts_truncate.sql).
CREATE OR REPLACE FUNCTION "dc_usage_truncate"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM usage_days;
  DELETE FROM usage_stored;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "tasks_usage_truncate" ON "tasks";--> statement-breakpoint
CREATE TRIGGER "tasks_usage_truncate" AFTER TRUNCATE ON "tasks"
  FOR EACH STATEMENT EXECUTE FUNCTION dc_usage_truncate();
