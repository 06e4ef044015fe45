-- queued → running for an admitted task (domain/tasks/status.ts startAdmitted), the first step of
-- every run, as one function call whose statements keep their plans (issue 13: 0.28 ms against
-- 0.57 ms on PGlite). Answers what happened: 'started' (now or before: a re-run step),
-- 'not_admitted' (still waiting for a slot), 'not_queued' (cancelled or paused meanwhile), or null
-- when there is no such task.
CREATE OR REPLACE FUNCTION "dc_start_task"(p_id text, p_now timestamptz) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  s text;
BEGIN
  UPDATE tasks t SET status = 'running', stage = 'probing', started_at = p_now, updated_at = p_now, admitted_at = NULL
    WHERE t.id = p_id AND t.status = 'queued' AND t.admitted_at IS NOT NULL;
  IF FOUND THEN
    RETURN 'started';
  END IF;
  SELECT t.status INTO s FROM tasks t WHERE t.id = p_id;
  RETURN CASE WHEN s IS NULL THEN NULL WHEN s = 'running' THEN 'started' WHEN s = 'queued' THEN 'not_admitted' ELSE 'not_queued' END;
END
$$;
