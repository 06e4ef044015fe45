import { createCleanupActivities } from './cleanup.js';
import type { ActivityDeps } from './deps.js';
import { createFetchActivities } from './fetch.js';
import { createMergeActivities } from './merge.js';
import { createNotifyActivities } from './notify.js';
import { createRenderCsvActivities } from './render-csv.js';
import { createRenderXlsxActivities } from './render-xlsx.js';
import { createTaskStateActivities } from './task-state.js';
import { createUploadActivities } from './upload.js';

export type { ActivityDeps } from './deps.js';

export function createActivities(deps: ActivityDeps) {
  return {
    ...createTaskStateActivities(deps),
    ...createFetchActivities(deps),
    ...createMergeActivities(deps),
    ...createRenderCsvActivities(deps),
    ...createRenderXlsxActivities(deps),
    ...createUploadActivities(deps),
    ...createCleanupActivities(deps),
    ...createNotifyActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
