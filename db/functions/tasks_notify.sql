-- Fan-out of task changes to every API process (domain/tasks/events.ts): one small NOTIFY per
-- changed row, from the database itself, so that every writer (worker activities, API cancel/retry,
-- any later job) is covered. NOTIFY is delivered on commit and is scoped to this database.
CREATE OR REPLACE FUNCTION "tasks_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('task_events', json_build_object('id', NEW.id, 'project', NEW.project_id, 'status', NEW.status)::text);
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "tasks_notify" ON "tasks";--> statement-breakpoint
CREATE TRIGGER "tasks_notify" AFTER INSERT OR UPDATE ON "tasks" FOR EACH ROW EXECUTE FUNCTION "tasks_notify"();
