-- Admission: the project's free slots reserved for its next waiting tasks in queue order
-- (priority, then submission), their starts claimed for the caller. Answers their ids in that order.
-- A cancel or pause does not take the admission lock: one that commits between the pick and the
-- update must win. The update's own condition is checked again on the newest row version
-- (Postgres re-evaluates an UPDATE's WHERE on a row changed meanwhile), so it names the state it
-- admits from, not only the id.
CREATE OR REPLACE FUNCTION "dc_admit_next"(p_project_id text, p_claim_ms double precision) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  slots integer;
  now_ts timestamptz;
BEGIN
  PERFORM dc_admission_lock(p_project_id);
  now_ts := clock_timestamp();
  SELECT p.max_running_tasks - dc_slots_held(p_project_id) INTO slots FROM projects p WHERE p.id = p_project_id;
  IF slots IS NULL OR slots <= 0 THEN
    RETURN;
  END IF;
  RETURN QUERY WITH picked AS (
      SELECT q.id FROM tasks q WHERE q.project_id = p_project_id AND q.status = 'queued' AND q.admitted_at IS NULL
      ORDER BY q.priority, q.created_at, q.id LIMIT slots
    ), marked AS (
      UPDATE tasks t SET admitted_at = now_ts, start_claimed_until = now_ts + p_claim_ms * interval '1 millisecond'
      FROM picked WHERE t.id = picked.id AND t.status = 'queued' AND t.admitted_at IS NULL
      RETURNING t.id, t.priority, t.created_at
    )
    SELECT m.id FROM marked m ORDER BY m.priority, m.created_at, m.id;
END
$$;
