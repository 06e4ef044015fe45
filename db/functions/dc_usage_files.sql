-- What a task's files add up to (kept usage, dc_usage_apply.sql, and its recount, dc_usage_recount.sql):
-- their rows and bytes, and whether they were delivered to a destination (a file carries delivered_to).
-- A split export lists its parts and a zip holding them all (domain/staging/outputs.ts): the zip is
-- left out of rows and bytes, which would count every part twice (usage_stored counts it: it is stored).
CREATE OR REPLACE FUNCTION "dc_usage_files"(p_files jsonb) RETURNS TABLE (rows bigint, bytes bigint, delivered boolean)
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(sum((f->>'rows')::bigint) FILTER (WHERE NOT z), 0)::bigint, coalesce(sum((f->>'bytes')::bigint) FILTER (WHERE NOT z), 0)::bigint,
         coalesce(bool_or(f ? 'delivered_to'), false)
    FROM jsonb_array_elements(p_files) f
    CROSS JOIN LATERAL (SELECT jsonb_array_length(p_files) > 1 AND f->>'name' LIKE '%.zip' AS z) s
$$;
