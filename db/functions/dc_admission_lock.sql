-- The admission lock: one admitter per project at a time, across processes, until the caller's
-- transaction ends. Every function that counts slots to fill them takes it first (dc_accept_task,
-- dc_admit_next, dc_requeue_task). Admission's rules are each written once, as these functions in
-- db/functions/; domain/tasks/admission/ calls them and holds no copy (docs/adr/0022-admission-one-owner.md).
CREATE OR REPLACE FUNCTION "dc_admission_lock"(p_project_id text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('admit:' || p_project_id));
END
$$;
