-- The bytes a task row holds in the file store, as usage_stored counts them (dc_usage_apply.sql):
-- its files while it is succeeded, or failed keeping them (a failed delivery); none otherwise (an
-- expired task's files are gone; a retried one's were dropped).
CREATE OR REPLACE FUNCTION "dc_usage_kept_bytes"(p_status text, p_files jsonb) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_status IN ('succeeded', 'failed')
    THEN (SELECT coalesce(sum((f->>'bytes')::bigint), 0) FROM jsonb_array_elements(p_files) f)::bigint ELSE 0::bigint END
$$;
