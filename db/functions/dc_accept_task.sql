-- Accepting a submission (domain/tasks/admission/accept.ts) in one call: under the admission lock,
-- the duplicate it repeats, or (no project quota reached, dc_quota_check.sql) the submit rate's quota taken and the row inserted, admitted with its start claimed
-- when a slot is free and nobody waits. A sync export (p_outside_queue) may pass tasks still queued,
-- as its caller waits on the line, but never takes more slots than its project has: without a free
-- one it is recorded queued, an ordinary export, and the caller is answered 202. admitted is null
-- when an identical request won the insert: its quota is given back. One call, so its statements
-- keep their plans for the session (docs/adr/0021-hot-statements-as-database-functions.md).
CREATE OR REPLACE FUNCTION "dc_accept_task"(
  p_id text, p_project_id text, p_operator_id text, p_type text, p_file_name text, p_source_url text, p_callback text,
  p_page_size integer, p_priority integer, p_options jsonb, p_idempotency_key text, p_request_hash text, p_schedule_id text,
  p_admitted_at timestamptz, p_created_at timestamptz, p_outside_queue boolean, p_window_ms double precision, p_claim_ms double precision
) RETURNS TABLE (dup_id text, dup_hash text, "limit" integer, old_tat double precision, tat double precision, now_ms double precision, admitted boolean, free integer, waiting boolean)
LANGUAGE plpgsql AS $$
DECLARE
  prj record;
  d record;
  r record;
  held integer;
  w boolean;
  adm boolean;
BEGIN
  PERFORM dc_admission_lock(p_project_id);
  SELECT p.max_running_tasks, p.submit_per_minute INTO prj FROM projects p WHERE p.id = p_project_id;
  IF NOT FOUND THEN
    RETURN QUERY SELECT NULL::text, NULL::text, NULL::integer, NULL::float8, NULL::float8, 0::float8, NULL::boolean, 0, false;
    RETURN;
  END IF;
  -- A duplicate is answered with the task it repeats and takes no quota.
  SELECT * INTO d FROM dc_find_duplicate(p_project_id, p_request_hash, p_idempotency_key);
  IF d.dup_id IS NOT NULL THEN
    RETURN QUERY SELECT d.dup_id, d.dup_hash, prj.submit_per_minute, NULL::float8, NULL::float8, 0::float8, NULL::boolean, 0, false;
    RETURN;
  END IF;
  -- A quota reached refuses it (an exception, SQLSTATE DCQ01) before the rate or a slot is taken.
  PERFORM dc_quota_check(p_project_id);
  SELECT * INTO r FROM dc_take_submission(p_project_id, p_window_ms);
  held := dc_slots_held(p_project_id);
  SELECT EXISTS (SELECT 1 FROM tasks t WHERE t.project_id = p_project_id AND t.status = 'queued' AND t.admitted_at IS NULL) INTO w;
  IF r.tat IS NOT NULL THEN
    adm := held < prj.max_running_tasks AND (p_outside_queue OR NOT w);
    INSERT INTO tasks (id, project_id, operator_id, type, file_name, source_url, callback, page_size, priority, options,
                       idempotency_key, request_hash, schedule_id, status, admitted_at, start_claimed_until, created_at, updated_at)
    VALUES (p_id, p_project_id, p_operator_id, p_type, p_file_name, p_source_url, p_callback, p_page_size, p_priority, p_options,
            p_idempotency_key, p_request_hash, p_schedule_id, 'queued',
            CASE WHEN adm THEN p_admitted_at END, CASE WHEN adm THEN p_admitted_at + p_claim_ms * interval '1 millisecond' END, p_created_at, p_created_at)
    ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN
      adm := NULL;
      UPDATE projects p SET submit_tat = p.submit_tat - (p_window_ms / p.submit_per_minute) * interval '1 millisecond' WHERE p.id = p_project_id;
    END IF;
  END IF;
  RETURN QUERY SELECT NULL::text, NULL::text, r."limit", r.old_tat, r.tat, r.now_ms, adm, prj.max_running_tasks - held, w;
END
$$;
