-- Renews the start claims (dc_claim_lapsed_starts.sql) of those of p_ids still admitted and not
-- started, while their starts are in hand. Answers how many it renewed.
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
$$;
