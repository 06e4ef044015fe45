-- A TRUNCATE of tasks fires no row trigger (dc_task_counts_apply.sql); the counts go with the rows.
CREATE OR REPLACE FUNCTION "dc_task_counts_truncate"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM task_counts;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "tasks_count_truncate" ON "tasks";--> statement-breakpoint
CREATE TRIGGER "tasks_count_truncate" AFTER TRUNCATE ON "tasks"
  FOR EACH STATEMENT EXECUTE FUNCTION dc_task_counts_truncate();
