-- Kept usage (docs/adr/0049-usage-and-quotas.md): each project's use per UTC day in usage_days and
-- the bytes of its live files in usage_stored, kept by the database as tasks change, like the task
-- counts (dc_task_counts_apply.sql): every writer is covered, a rollback undoes both, and a read
-- or a quota check costs a few rows whatever the history. Statement-level with transition tables,
-- counter rows taken in key order.
-- What counts, each on the UTC date it happened:
--   tasks       a row inserted (a submission: API, sync export, schedule run), on created_at's date;
--               deleting a submission whose run never started (queued, first run) takes its one back.
--   succeeded,  a task ending (queued, running or paused → succeeded or failed, finished_at set, as
--   failed      every end of the service sets it), on finished_at's date. A task made active again
--               (a retry: failed → queued) takes back the end it had, on that end's date, so each
--               task counts its current end only, as dc_usage_recount.sql sees it in the row.
--               A row inserted ended (a bulk load) counts its end as it comes.
--   rows, bytes the files of a task as it ends succeeded (the output made).
--   deliveries  a task ending succeeded with its files delivered to a destination (one per task).
-- usage_stored: the sum of files[].bytes over the tasks that hold live files (succeeded, and failed
-- keeping theirs after a failed delivery); it falls as the cleaner expires them.
CREATE OR REPLACE FUNCTION "dc_usage_apply"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    -- A row inserted already ended (a bulk load; no writer of the service does it) counts its end too.
    INSERT INTO usage_days AS u (project_id, day, tasks, succeeded, failed, rows, bytes, deliveries)
      SELECT e.project_id, e.day, sum(e.tasks)::integer, sum(e.succeeded)::integer, sum(e.failed)::integer, sum(e.rows)::bigint, sum(e.bytes)::bigint, sum(e.deliveries)::integer
        FROM (
          SELECT r.project_id, (r.created_at AT TIME ZONE 'UTC')::date AS day, 1 AS tasks, 0 AS succeeded, 0 AS failed, 0::bigint AS rows, 0::bigint AS bytes, 0 AS deliveries
            FROM new_rows r
          UNION ALL
          SELECT r.project_id, (r.finished_at AT TIME ZONE 'UTC')::date, 0, (r.status <> 'failed')::integer, (r.status = 'failed')::integer,
                 CASE WHEN r.status = 'failed' THEN 0 ELSE f.rows END, CASE WHEN r.status = 'failed' THEN 0 ELSE f.bytes END, (r.status <> 'failed' AND f.delivered)::integer
            FROM new_rows r CROSS JOIN LATERAL dc_usage_files(r.files) f
            WHERE r.status IN ('succeeded', 'expired', 'failed') AND r.finished_at IS NOT NULL
        ) e GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT (project_id, day) DO UPDATE SET tasks = u.tasks + excluded.tasks, succeeded = u.succeeded + excluded.succeeded, failed = u.failed + excluded.failed,
        rows = u.rows + excluded.rows, bytes = u.bytes + excluded.bytes, deliveries = u.deliveries + excluded.deliveries;
    INSERT INTO usage_stored AS s (project_id, bytes)
      SELECT r.project_id, sum(dc_usage_kept_bytes(r.status, r.files)) FROM new_rows r
        WHERE r.status IN ('succeeded', 'failed') GROUP BY 1 HAVING sum(dc_usage_kept_bytes(r.status, r.files)) <> 0 ORDER BY 1
      ON CONFLICT (project_id) DO UPDATE SET bytes = s.bytes + excluded.bytes;
  ELSIF TG_OP = 'DELETE' THEN
    -- Only a submission whose run never started is taken back; deleting an old task forgets no use.
    INSERT INTO usage_days AS u (project_id, day, tasks)
      SELECT r.project_id, (r.created_at AT TIME ZONE 'UTC')::date, -count(*)::integer FROM old_rows r
        WHERE r.status = 'queued' AND r.runs = 1 AND r.started_at IS NULL GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT (project_id, day) DO UPDATE SET tasks = u.tasks + excluded.tasks;
    INSERT INTO usage_stored AS s (project_id, bytes)
      SELECT r.project_id, -sum(dc_usage_kept_bytes(r.status, r.files)) FROM old_rows r
        WHERE r.status IN ('succeeded', 'failed') GROUP BY 1 HAVING sum(dc_usage_kept_bytes(r.status, r.files)) <> 0 ORDER BY 1
      ON CONFLICT (project_id) DO UPDATE SET bytes = s.bytes + excluded.bytes;
  ELSE
    -- Most updates (progress, claims, admission) touch no ended task: nothing to read or write.
    IF NOT EXISTS (SELECT 1 FROM new_rows WHERE status IN ('succeeded', 'failed'))
       AND NOT EXISTS (SELECT 1 FROM old_rows WHERE status IN ('succeeded', 'failed', 'expired')) THEN
      RETURN NULL;
    END IF;
    -- Ends (+1: active → succeeded or failed) and ends taken back (-1: ended → active, a retry),
    -- each with its own row's date and files; a retry's old end is the row's, not the new run's.
    INSERT INTO usage_days AS u (project_id, day, succeeded, failed, rows, bytes, deliveries)
      SELECT e.project_id, e.day,
             coalesce(sum(e.sign) FILTER (WHERE NOT e.failed), 0)::integer,
             coalesce(sum(e.sign) FILTER (WHERE e.failed), 0)::integer,
             coalesce(sum(e.sign * e.rows) FILTER (WHERE NOT e.failed), 0)::bigint,
             coalesce(sum(e.sign * e.bytes) FILTER (WHERE NOT e.failed), 0)::bigint,
             coalesce(sum(e.sign) FILTER (WHERE NOT e.failed AND e.delivered), 0)::integer
        FROM (
          SELECT n.project_id, (n.finished_at AT TIME ZONE 'UTC')::date AS day, 1 AS sign, n.status = 'failed' AS failed, f.rows, f.bytes, f.delivered
            FROM new_rows n JOIN old_rows o ON o.id = n.id
            CROSS JOIN LATERAL dc_usage_files(n.files) f
            WHERE o.status IN ('queued', 'running', 'paused') AND n.status IN ('succeeded', 'failed') AND n.finished_at IS NOT NULL
          UNION ALL
          SELECT o.project_id, (o.finished_at AT TIME ZONE 'UTC')::date, -1, o.status = 'failed', f.rows, f.bytes, f.delivered
            FROM old_rows o JOIN new_rows n ON n.id = o.id
            CROSS JOIN LATERAL dc_usage_files(o.files) f
            WHERE o.status IN ('succeeded', 'expired', 'failed') AND n.status IN ('queued', 'running', 'paused') AND o.finished_at IS NOT NULL
        ) e
        GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT (project_id, day) DO UPDATE SET succeeded = u.succeeded + excluded.succeeded, failed = u.failed + excluded.failed,
        rows = u.rows + excluded.rows, bytes = u.bytes + excluded.bytes, deliveries = u.deliveries + excluded.deliveries;
    INSERT INTO usage_stored AS s (project_id, bytes)
      SELECT d.project_id, sum(d.b) FROM (
          SELECT o.project_id, -dc_usage_kept_bytes(o.status, o.files) AS b FROM old_rows o WHERE o.status IN ('succeeded', 'failed')
          UNION ALL SELECT w.project_id, dc_usage_kept_bytes(w.status, w.files) FROM new_rows w WHERE w.status IN ('succeeded', 'failed')
        ) d GROUP BY 1 HAVING sum(d.b) <> 0 ORDER BY 1
      ON CONFLICT (project_id) DO UPDATE SET bytes = s.bytes + excluded.bytes;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "tasks_usage_insert" ON "tasks";--> statement-breakpoint
CREATE TRIGGER "tasks_usage_insert" AFTER INSERT ON "tasks" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION dc_usage_apply();
--> statement-breakpoint
DROP TRIGGER IF EXISTS "tasks_usage_update" ON "tasks";--> statement-breakpoint
CREATE TRIGGER "tasks_usage_update" AFTER UPDATE ON "tasks" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION dc_usage_apply();
--> statement-breakpoint
DROP TRIGGER IF EXISTS "tasks_usage_delete" ON "tasks";--> statement-breakpoint
CREATE TRIGGER "tasks_usage_delete" AFTER DELETE ON "tasks" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION dc_usage_apply();
