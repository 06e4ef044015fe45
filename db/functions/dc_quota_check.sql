-- A project's quotas (docs/adr/0049-usage-and-quotas.md), checked by dc_accept_task under the
-- project's admission lock before anything is taken: quota_monthly_rows and quota_monthly_bytes
-- against this UTC calendar month's kept usage (usage_days, at most 31 rows), quota_stored_bytes
-- against the bytes of the project's live files (usage_stored, one row). A quota reached refuses
-- the submission with SQLSTATE DCQ01, its DETAIL a JSON of the quota, its limit, the use and,
-- for a monthly one, when the month ends (domain/usage/quota.ts reads it). Null or absent: no quota.
CREATE OR REPLACE FUNCTION "dc_quota_check"(p_project_id text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  s jsonb;
  month_start date;
  used_rows bigint;
  used_bytes bigint;
  stored bigint;
  resets text;
BEGIN
  SELECT p.settings INTO s FROM projects p WHERE p.id = p_project_id;
  IF s IS NULL OR NOT (jsonb_typeof(s->'quota_monthly_rows') = 'number' OR jsonb_typeof(s->'quota_monthly_bytes') = 'number'
                        OR jsonb_typeof(s->'quota_stored_bytes') = 'number') THEN
    RETURN;
  END IF;
  month_start := date_trunc('month', now() AT TIME ZONE 'UTC')::date;
  resets := to_char((month_start + interval '1 month')::timestamp, 'YYYY-MM-DD"T"HH24:MI:SS"Z"');
  SELECT coalesce(sum(u.rows), 0), coalesce(sum(u.bytes), 0) INTO used_rows, used_bytes
    FROM usage_days u WHERE u.project_id = p_project_id AND u.day >= month_start;
  IF jsonb_typeof(s->'quota_monthly_rows') = 'number' AND used_rows >= (s->>'quota_monthly_rows')::bigint THEN
    RAISE EXCEPTION USING ERRCODE = 'DCQ01', MESSAGE = 'quota_exceeded',
      DETAIL = json_build_object('quota', 'quota_monthly_rows', 'limit', (s->>'quota_monthly_rows')::bigint, 'used', used_rows, 'resets_at', resets)::text;
  END IF;
  IF jsonb_typeof(s->'quota_monthly_bytes') = 'number' AND used_bytes >= (s->>'quota_monthly_bytes')::bigint THEN
    RAISE EXCEPTION USING ERRCODE = 'DCQ01', MESSAGE = 'quota_exceeded',
      DETAIL = json_build_object('quota', 'quota_monthly_bytes', 'limit', (s->>'quota_monthly_bytes')::bigint, 'used', used_bytes, 'resets_at', resets)::text;
  END IF;
  IF jsonb_typeof(s->'quota_stored_bytes') = 'number' THEN
    SELECT coalesce(max(st.bytes), 0) INTO stored FROM usage_stored st WHERE st.project_id = p_project_id;
    IF stored >= (s->>'quota_stored_bytes')::bigint THEN
      RAISE EXCEPTION USING ERRCODE = 'DCQ01', MESSAGE = 'quota_exceeded',
        DETAIL = json_build_object('quota', 'quota_stored_bytes', 'limit', (s->>'quota_stored_bytes')::bigint, 'used', stored, 'resets_at', NULL)::text;
    END IF;
  END IF;
END
$$;
