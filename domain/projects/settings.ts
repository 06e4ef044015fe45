// Changing a project's settings (PATCH /v1/projects/:id). A higher max_running_tasks frees slots,
// so the project's queue is dispatched at once rather than at its next run's end. Admission lives in
// domain/tasks/, a room above this one (tasks read projects), so the caller hands its dispatch in:
// importing it from here would make the two rooms import each other.
import type { Db } from '../../db/client.js';
import type { ProjectRow } from '../../db/schema.js';
import { type ProjectPatch, updateProject } from './admin.js';

/** Starts what the project's freed slots now allow (domain/tasks/admission/service.ts, Admission.dispatch). */
export type DispatchProject = (projectId: string) => Promise<unknown>;

export async function changeProject(db: Db, projectId: string, patch: ProjectPatch, dispatch: DispatchProject): Promise<ProjectRow> {
  const row = await updateProject(db, projectId, patch);
  if (patch.max_running_tasks !== undefined) await dispatch(projectId);
  return row;
}
