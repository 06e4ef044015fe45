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
$$;
