-- Admission's rules, each written once, here: the admission lock, the slot rule, de-duplication,
-- the submit rate, the queue order and the start claim. domain/tasks/admission/ calls these
-- functions and holds no copy of them (docs/adr/0022-admission-one-owner.md). All are PL/pgSQL, so
-- their statements keep their plans for the session (docs/adr/0021-hot-statements-as-database-functions.md).
ALTER TABLE "tasks" ADD COLUMN "start_claimed_until" timestamp with time zone;--> statement-breakpoint
-- Tasks admitted before claims existed are claimed as if at their admission: the sweep takes them
-- when it would have before.
UPDATE "tasks" SET "start_claimed_until" = "admitted_at" + interval '10 seconds' WHERE "status" = 'queued' AND "admitted_at" IS NOT NULL;--> statement-breakpoint
-- The admission lock: one admitter per project at a time, across processes, until the caller's
-- transaction ends. Every function below that counts slots to fill them takes it first.
CREATE OR REPLACE FUNCTION "dc_admission_lock"(p_project_id text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('admit:' || p_project_id));
END
$$;--> statement-breakpoint
-- The slot rule: a task holds one of its project's slots while it runs, and from its admission
-- until its run starts. p_except: the task whose own slot the caller is deciding.
CREATE OR REPLACE FUNCTION "dc_slots_held"(p_project_id text, p_except text DEFAULT NULL) RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT count(*)::integer FROM tasks t WHERE t.project_id = p_project_id
    AND (t.status = 'running' OR (t.status = 'queued' AND t.admitted_at IS NOT NULL))
    AND t.id IS DISTINCT FROM p_except);
END
$$;--> statement-breakpoint
-- De-duplication: the task a submission repeats. With an Idempotency-Key, that key's task whatever
-- its status (its body may differ; the caller compares the hashes); without one, an identical live
-- task (the statuses of the unique index tasks_live_request_idx, which makes the rule hold).
CREATE OR REPLACE FUNCTION "dc_find_duplicate"(p_project_id text, p_request_hash text, p_idempotency_key text)
RETURNS TABLE (dup_id text, dup_hash text)
LANGUAGE plpgsql AS $$
BEGIN
  IF p_idempotency_key IS NOT NULL THEN
    RETURN QUERY SELECT t.id, t.request_hash FROM tasks t WHERE t.project_id = p_project_id AND t.idempotency_key = p_idempotency_key LIMIT 1;
  ELSE
    RETURN QUERY SELECT t.id, t.request_hash FROM tasks t
      WHERE t.project_id = p_project_id AND t.request_hash = p_request_hash AND t.status IN ('queued', 'running', 'paused') LIMIT 1;
  END IF;
END
$$;--> statement-breakpoint
-- The submit rate (GCRA): one submission taken from the project's quota. tat is null when the
-- project is over its rate (nothing taken); old_tat then says until when (ms, null: never set).
-- No row at all: no such project.
CREATE OR REPLACE FUNCTION "dc_take_submission"(p_project_id text, p_window_ms double precision)
RETURNS TABLE ("limit" integer, old_tat double precision, tat double precision, now_ms double precision)
LANGUAGE plpgsql AS $$
DECLARE
  -- Not now(): that is the transaction's start, before any wait for a lock, and a stale clock
  -- would overstate the Retry-After by that wait.
  now_ts timestamptz := clock_timestamp();
  per_minute integer;
  prev timestamptz;
  next_tat timestamptz;
BEGIN
  SELECT p.submit_per_minute INTO per_minute FROM projects p WHERE p.id = p_project_id;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  -- From the row's own columns, so that a concurrent writer of the row is re-read when this
  -- update waits for it, never overwritten.
  UPDATE projects p SET submit_tat = greatest(coalesce(p.submit_tat, now_ts), now_ts) + (p_window_ms / p.submit_per_minute) * interval '1 millisecond'
    WHERE p.id = p_project_id AND greatest(coalesce(p.submit_tat, now_ts), now_ts) + (p_window_ms / p.submit_per_minute) * interval '1 millisecond' - now_ts <= p_window_ms * interval '1 millisecond'
    RETURNING p.submit_tat INTO next_tat;
  IF next_tat IS NULL THEN
    SELECT p.submit_tat INTO prev FROM projects p WHERE p.id = p_project_id;
  END IF;
  RETURN QUERY SELECT per_minute, extract(epoch from prev)::float8 * 1000, extract(epoch from next_tat)::float8 * 1000, extract(epoch from now_ts)::float8 * 1000;
END
$$;--> statement-breakpoint
-- Admission: the project's free slots reserved for its next waiting tasks in queue order
-- (priority, then submission), their starts claimed for the caller. Answers their ids in that order.
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
      FROM picked WHERE t.id = picked.id RETURNING t.id, t.priority, t.created_at
    )
    SELECT m.id FROM marked m ORDER BY m.priority, m.created_at, m.id;
END
$$;--> statement-breakpoint
-- The start claim: whoever admits a task holds the start of its run for p_claim_ms, and renews it
-- while the start is still in hand. A claim that lapsed (its holder died) is taken here by one
-- caller only, across processes, who starts the run. p_project_id null: every project's.
CREATE OR REPLACE FUNCTION "dc_claim_lapsed_starts"(p_project_id text, p_claim_ms double precision) RETURNS SETOF text
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY UPDATE tasks t SET start_claimed_until = clock_timestamp() + p_claim_ms * interval '1 millisecond'
    WHERE t.status = 'queued' AND t.admitted_at IS NOT NULL AND (p_project_id IS NULL OR t.project_id = p_project_id)
      AND (t.start_claimed_until IS NULL OR t.start_claimed_until < clock_timestamp())
    RETURNING t.id;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "dc_renew_start_claims"(p_ids text[], p_claim_ms double precision) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  UPDATE tasks t SET start_claimed_until = clock_timestamp() + p_claim_ms * interval '1 millisecond'
    WHERE t.id = ANY (p_ids) AND t.status = 'queued' AND t.admitted_at IS NOT NULL;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END
$$;--> statement-breakpoint
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
$$;--> statement-breakpoint
DROP FUNCTION IF EXISTS "dc_accept_task"(text, text, text, text, text, text, text, integer, integer, jsonb, text, text, text, timestamptz, timestamptz, boolean, double precision);--> statement-breakpoint
-- Accepting a submission in one call: under the admission lock, the duplicate it repeats, or the
-- quota taken and the row inserted, admitted with its start claimed when a slot is free and nobody
-- waits (or outside the queue: a sync export, which the API's sync slots bound instead).
-- admitted is null when an identical request won the insert: its quota is given back.
CREATE FUNCTION "dc_accept_task"(
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
  SELECT * INTO r FROM dc_take_submission(p_project_id, p_window_ms);
  held := dc_slots_held(p_project_id);
  SELECT EXISTS (SELECT 1 FROM tasks t WHERE t.project_id = p_project_id AND t.status = 'queued' AND t.admitted_at IS NULL) INTO w;
  IF r.tat IS NOT NULL THEN
    adm := p_outside_queue OR (held < prj.max_running_tasks AND NOT w);
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
