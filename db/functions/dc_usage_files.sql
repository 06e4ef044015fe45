-- What a task's files add up to (kept usage, dc_usage_apply.sql, and its recount, dc_usage_recount.sql):
-- their rows and bytes, and whether they were delivered to a destination (a file carries delivered_to).
CREATE OR REPLACE FUNCTION "dc_usage_files"(p_files jsonb) RETURNS TABLE (rows bigint, bytes bigint, delivered boolean)
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(sum((f->>'rows')::bigint), 0)::bigint, coalesce(sum((f->>'bytes')::bigint), 0)::bigint, coalesce(bool_or(f ? 'delivered_to'), false)
    FROM jsonb_array_elements(p_files) f
$$;
