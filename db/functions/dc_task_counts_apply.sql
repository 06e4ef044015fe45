-- Kept task counts: how many tasks each project has in each status, kept exact by the database as
-- rows change, so counts and the /metrics gauges read a few rows instead of counting the tasks
-- table (docs/adr/0028-kept-task-counts.md). Triggers, not application code: every writer of
-- tasks (domain/tasks/status.ts, the admission functions, a hand-run UPDATE) is covered, and the
-- count changes in the same transaction as the row, so a rollback undoes both.
-- dc_task_counts_apply adds a statement's net change per (project, status). Statement-level with
-- transition tables, so a statement of many rows (a batched expiry) writes each counter row once;
-- the rows are taken in key order, so two statements never lock counter rows in opposite orders.
CREATE OR REPLACE FUNCTION "dc_task_counts_apply"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO task_counts AS c (project_id, status, n)
      SELECT r.project_id, r.status, count(*)::integer FROM new_rows r GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT (project_id, status) DO UPDATE SET n = c.n + excluded.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO task_counts AS c (project_id, status, n)
      SELECT r.project_id, r.status, -count(*)::integer FROM old_rows r GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT (project_id, status) DO UPDATE SET n = c.n + excluded.n;
  ELSE
    -- Most updates (progress, claims) change no status: their net change is empty and nothing is written.
    INSERT INTO task_counts AS c (project_id, status, n)
      SELECT d.project_id, d.status, sum(d.n)::integer FROM (
          SELECT o.project_id, o.status, -1 AS n FROM old_rows o
          UNION ALL SELECT w.project_id, w.status, 1 FROM new_rows w
        ) d GROUP BY 1, 2 HAVING sum(d.n) <> 0 ORDER BY 1, 2
      ON CONFLICT (project_id, status) DO UPDATE SET n = c.n + excluded.n;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "tasks_count_insert" ON "tasks";--> statement-breakpoint
CREATE TRIGGER "tasks_count_insert" AFTER INSERT ON "tasks" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION dc_task_counts_apply();
--> statement-breakpoint
DROP TRIGGER IF EXISTS "tasks_count_update" ON "tasks";--> statement-breakpoint
CREATE TRIGGER "tasks_count_update" AFTER UPDATE ON "tasks" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION dc_task_counts_apply();
--> statement-breakpoint
DROP TRIGGER IF EXISTS "tasks_count_delete" ON "tasks";--> statement-breakpoint
CREATE TRIGGER "tasks_count_delete" AFTER DELETE ON "tasks" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION dc_task_counts_apply();
