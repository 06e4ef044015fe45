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
$$;
