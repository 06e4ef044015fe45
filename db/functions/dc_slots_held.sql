-- The slot rule: a task holds one of its project's slots while it runs, and from its admission
-- until its run starts. p_except: the task whose own slot the caller is deciding.
CREATE OR REPLACE FUNCTION "dc_slots_held"(p_project_id text, p_except text DEFAULT NULL) RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT count(*)::integer FROM tasks t WHERE t.project_id = p_project_id
    AND (t.status = 'running' OR (t.status = 'queued' AND t.admitted_at IS NOT NULL))
    AND t.id IS DISTINCT FROM p_except);
END
$$;
