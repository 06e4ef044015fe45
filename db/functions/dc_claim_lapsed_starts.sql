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
$$;
