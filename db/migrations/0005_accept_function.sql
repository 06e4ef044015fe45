-- Accepting a submission (domain/tasks/accept.ts) as one function call: de-duplication, the submit
-- rate (GCRA), the insert and admission's decision. A function's statements keep their plans for the
-- session, where the same work as one ad-hoc statement was parsed and planned on every submission
-- (issue 13: 1.2 ms against 0.57 ms a submission on PGlite, most of it planning). The caller holds
-- the project's admission lock (or PGlite's single connection), so the reads below are not raced.
CREATE OR REPLACE FUNCTION "dc_accept_task"(
  p_id text, p_project_id text, p_operator_id text, p_type text, p_file_name text, p_source_url text, p_callback text,
  p_page_size integer, p_priority integer, p_options jsonb, p_idempotency_key text, p_request_hash text, p_schedule_id text,
  p_admitted_at timestamptz, p_created_at timestamptz, p_outside_queue boolean, p_window_ms double precision
) RETURNS TABLE (dup_id text, dup_hash text, "limit" integer, old_tat double precision, tat double precision, now_ms double precision, admitted boolean, free integer, waiting boolean)
LANGUAGE plpgsql AS $$
DECLARE
  -- Not now(): that is the transaction's start, before the wait for the admission lock, and a
  -- stale clock would overstate the Retry-After by that wait.
  now_ts timestamptz := statement_timestamp();
  d record;
  prj record;
  next_tat timestamptz;
  held integer;
  w boolean;
  adm boolean;
BEGIN
  SELECT p.max_running_tasks, p.submit_per_minute, p.submit_tat INTO prj FROM projects p WHERE p.id = p_project_id;
  IF NOT FOUND THEN
    RETURN QUERY SELECT NULL::text, NULL::text, NULL::integer, NULL::float8, NULL::float8, 0::float8, NULL::boolean, 0, false;
    RETURN;
  END IF;
  IF p_idempotency_key IS NOT NULL THEN
    SELECT t.id, t.request_hash INTO d FROM tasks t WHERE t.project_id = p_project_id AND t.idempotency_key = p_idempotency_key LIMIT 1;
  ELSE
    SELECT t.id, t.request_hash INTO d FROM tasks t WHERE t.project_id = p_project_id AND t.request_hash = p_request_hash AND t.status IN ('queued', 'running', 'paused') LIMIT 1;
  END IF;
  -- A duplicate is answered with the task it repeats and takes no quota.
  IF d.id IS NOT NULL THEN
    RETURN QUERY SELECT d.id, d.request_hash, prj.submit_per_minute, extract(epoch from prj.submit_tat)::float8 * 1000, NULL::float8, extract(epoch from now_ts)::float8 * 1000, NULL::boolean, 0, false;
    RETURN;
  END IF;
  -- From the row's own columns, so that a concurrent writer of the row (a preview's quota) is
  -- re-read when this update waits for it, never overwritten. No row: over the rate.
  UPDATE projects p SET submit_tat = greatest(coalesce(p.submit_tat, now_ts), now_ts) + (p_window_ms / p.submit_per_minute) * interval '1 millisecond'
    WHERE p.id = p_project_id AND greatest(coalesce(p.submit_tat, now_ts), now_ts) + (p_window_ms / p.submit_per_minute) * interval '1 millisecond' - now_ts <= p_window_ms * interval '1 millisecond'
    RETURNING p.submit_tat INTO next_tat;
  SELECT count(*)::integer INTO held FROM tasks t WHERE t.project_id = p_project_id AND (t.status = 'running' OR (t.status = 'queued' AND t.admitted_at IS NOT NULL));
  SELECT EXISTS (SELECT 1 FROM tasks t WHERE t.project_id = p_project_id AND t.status = 'queued' AND t.admitted_at IS NULL) INTO w;
  -- Admitted at once when a slot is free and nobody waits (or outside the queue: a sync export).
  -- A conflict (an identical request recorded meanwhile) leaves adm null: the caller's LostRace.
  IF next_tat IS NOT NULL THEN
    INSERT INTO tasks (id, project_id, operator_id, type, file_name, source_url, callback, page_size, priority, options,
                       idempotency_key, request_hash, schedule_id, status, admitted_at, created_at, updated_at)
    VALUES (p_id, p_project_id, p_operator_id, p_type, p_file_name, p_source_url, p_callback, p_page_size, p_priority, p_options,
            p_idempotency_key, p_request_hash, p_schedule_id, 'queued',
            CASE WHEN p_outside_queue OR (held < prj.max_running_tasks AND NOT w) THEN p_admitted_at END, p_created_at, p_created_at)
    ON CONFLICT DO NOTHING
    RETURNING tasks.admitted_at IS NOT NULL INTO adm;
  END IF;
  RETURN QUERY SELECT NULL::text, NULL::text, prj.submit_per_minute, extract(epoch from prj.submit_tat)::float8 * 1000,
    extract(epoch from next_tat)::float8 * 1000, extract(epoch from now_ts)::float8 * 1000, adm, prj.max_running_tasks - held, w;
END
$$;
