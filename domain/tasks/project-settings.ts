// Changing a project's settings (PATCH /v1/projects/:id). A higher max_running_tasks frees slots,
// so the project's queue is dispatched at once rather than at its next run's end.
import type { ProjectRow } from '../../db/schema.js';
import { type ProjectPatch, updateProject } from '../projects/admin.js';
import { type AdmissionDeps, dispatch } from './admission/index.js';

export async function changeProject(deps: AdmissionDeps, projectId: string, patch: ProjectPatch): Promise<ProjectRow> {
  const row = await updateProject(deps.db, projectId, patch);
  if (patch.max_running_tasks !== undefined) await dispatch(deps, projectId);
  return row;
}
