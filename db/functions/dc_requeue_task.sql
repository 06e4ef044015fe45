-- running → queued for a sync export over the sync row limit, in its original place: admitted at
-- once when the project has a slot beside the task's own (the run itself then continues as the
-- export, holding the claim), otherwise waiting like any queued task.
CREATE OR REPLACE FUNCTION "dc_requeue_task"(p_id text, p_claim_ms double precision) RETURNS TABLE (requeued boolean, admitted boolean)
LANGUAGE plpgsql AS $$
DECLARE
  prj text;
  adm boolean;
  now_ts timestamptz;
BEGIN
  SELECT t.project_id INTO prj FROM tasks t WHERE t.id = p_id;
  IF NOT FOUND THEN
    RETURN QUERY SELECT false, false;
    RETURN;
  END IF;
  PERFORM dc_admission_lock(prj);
  now_ts := clock_timestamp();
  SELECT dc_slots_held(prj, p_id) < p.max_running_tasks INTO adm FROM projects p WHERE p.id = prj;
  adm := coalesce(adm, false);
  UPDATE tasks t SET status = 'queued', stage = NULL, started_at = NULL, updated_at = now_ts,
      admitted_at = CASE WHEN adm THEN now_ts END,
      start_claimed_until = CASE WHEN adm THEN now_ts + p_claim_ms * interval '1 millisecond' END
    WHERE t.id = p_id AND t.status = 'running';
  RETURN QUERY SELECT FOUND, FOUND AND adm;
END
$$;
