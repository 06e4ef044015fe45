-- Kept usage rebuilt from the rows (docs/adr/0049-usage-and-quotas.md): what usage_days and
-- usage_stored would hold had the triggers (dc_usage_apply.sql, dc_usage_emails.sql) seen every
-- row since the first. For a database the triggers did not see: one made before usage was kept
-- (backfilled below, once), or a bulk load with triggers disabled. The rows keep a task's last run
-- only, and so does the kept usage (a retry takes back the end it retries), so both agree; only a
-- deleted task is forgotten here where the kept usage keeps its use. Expired tasks succeeded; their
-- files' rows and bytes still count.
CREATE OR REPLACE FUNCTION "dc_usage_recount"() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM usage_days;
  DELETE FROM usage_stored;
  INSERT INTO usage_days (project_id, day, tasks, succeeded, failed, rows, bytes, deliveries, emails)
    SELECT e.project_id, e.day, sum(e.tasks)::integer, sum(e.succeeded)::integer, sum(e.failed)::integer,
           sum(e.rows)::bigint, sum(e.bytes)::bigint, sum(e.deliveries)::integer, sum(e.emails)::integer
      FROM (
        SELECT t.project_id, (t.created_at AT TIME ZONE 'UTC')::date AS day, 1 AS tasks, 0 AS succeeded, 0 AS failed,
               0::bigint AS rows, 0::bigint AS bytes, 0 AS deliveries, 0 AS emails
          FROM tasks t
        UNION ALL
        SELECT t.project_id, (t.finished_at AT TIME ZONE 'UTC')::date, 0,
               CASE WHEN t.status = 'failed' THEN 0 ELSE 1 END, CASE WHEN t.status = 'failed' THEN 1 ELSE 0 END,
               CASE WHEN t.status = 'failed' THEN 0 ELSE f.rows END, CASE WHEN t.status = 'failed' THEN 0 ELSE f.bytes END,
               CASE WHEN t.status <> 'failed' AND f.delivered THEN 1 ELSE 0 END, 0
          FROM tasks t CROSS JOIN LATERAL dc_usage_files(t.files) f
          WHERE t.status IN ('succeeded', 'expired', 'failed') AND t.finished_at IS NOT NULL
        UNION ALL
        SELECT t.project_id, (d.created_at AT TIME ZONE 'UTC')::date, 0, 0, 0, 0, 0, 0, 1
          FROM deliveries d JOIN tasks t ON t.id = d.task_id
          WHERE d.channel = 'email' AND d.result = 'delivered'
      ) e
      GROUP BY 1, 2;
  INSERT INTO usage_stored (project_id, bytes)
    SELECT t.project_id, sum(dc_usage_kept_bytes(t.status, t.files))::bigint FROM tasks t
      WHERE t.status IN ('succeeded', 'failed') GROUP BY 1 HAVING sum(dc_usage_kept_bytes(t.status, t.files)) <> 0;
END
$$;
--> statement-breakpoint
-- Once, when usage starts being kept on a database that has tasks already: its history backfilled.
-- The triggers were created earlier in this same transaction (dc_usage_apply.sql sorts first), and
-- creating a trigger locks tasks against writers until the commit, so no change falls in between.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM usage_days) AND NOT EXISTS (SELECT 1 FROM usage_stored) THEN
    PERFORM dc_usage_recount();
  END IF;
END
$$;
