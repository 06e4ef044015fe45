-- Kept usage's e-mails (docs/adr/0049-usage-and-quotas.md): each mail the center sent (a deliveries
-- row of channel email whose result is delivered: a task's notify_email mail, or a schedule's pause
-- alert, recorded with the failed task that paused it) counts on the UTC date of its attempt, for
-- the task's project, in the same transaction as the row, like dc_usage_apply.sql.
-- Statement-level; a row leaving delivered (no writer does today) would take its one back.
CREATE OR REPLACE FUNCTION "dc_usage_emails"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO usage_days AS u (project_id, day, emails)
      SELECT t.project_id, (n.created_at AT TIME ZONE 'UTC')::date, count(*)::integer
        FROM new_rows n JOIN tasks t ON t.id = n.task_id
        WHERE n.channel = 'email' AND n.result = 'delivered' GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT (project_id, day) DO UPDATE SET emails = u.emails + excluded.emails;
  ELSE
    -- Callbacks' attempts and a mail's own progress (sending, failed) change nothing here.
    IF NOT EXISTS (SELECT 1 FROM new_rows WHERE channel = 'email' AND result = 'delivered')
       AND NOT EXISTS (SELECT 1 FROM old_rows WHERE channel = 'email' AND result = 'delivered') THEN
      RETURN NULL;
    END IF;
    INSERT INTO usage_days AS u (project_id, day, emails)
      SELECT t.project_id, (d.created_at AT TIME ZONE 'UTC')::date, sum(d.n)::integer FROM (
          SELECT o.task_id, o.created_at, -1 AS n FROM old_rows o WHERE o.channel = 'email' AND o.result = 'delivered'
          UNION ALL SELECT w.task_id, w.created_at, 1 FROM new_rows w WHERE w.channel = 'email' AND w.result = 'delivered'
        ) d JOIN tasks t ON t.id = d.task_id
        GROUP BY 1, 2 HAVING sum(d.n) <> 0 ORDER BY 1, 2
      ON CONFLICT (project_id, day) DO UPDATE SET emails = u.emails + excluded.emails;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "deliveries_usage_insert" ON "deliveries";--> statement-breakpoint
CREATE TRIGGER "deliveries_usage_insert" AFTER INSERT ON "deliveries" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION dc_usage_emails();
--> statement-breakpoint
DROP TRIGGER IF EXISTS "deliveries_usage_update" ON "deliveries";--> statement-breakpoint
CREATE TRIGGER "deliveries_usage_update" AFTER UPDATE ON "deliveries" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION dc_usage_emails();
