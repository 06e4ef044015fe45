// All activities, built once per worker from its dependencies. Each group is one file; the
// contract they fulfil is model/activities.ts, which the workflows proxy.
import type { Activities } from '../model/activities.js';
import { createCleanupActivities } from './cleanup.js';
import type { ActivityDeps } from './deps.js';
import { createDeliverActivities } from './deliver.js';
import { createEmailActivities } from './email.js';
import { createFetchActivities } from './fetch.js';
import { createNotifyActivities } from './notify.js';
import { createRenderActivities } from './render.js';
import { createScheduleActivities } from './schedules.js';
import { createStagingActivities } from './staging.js';
import { createTaskStateActivities } from './task-state.js';

export type { ActivityDeps } from './deps.js';

export function createActivities(deps: ActivityDeps): Activities {
  return {
    ...createTaskStateActivities(deps),
    ...createFetchActivities(deps),
    ...createStagingActivities(deps),
    ...createRenderActivities(deps),
    ...createDeliverActivities(deps),
    ...createCleanupActivities(deps),
    ...createNotifyActivities(deps),
    ...createEmailActivities(deps),
    ...createScheduleActivities(deps),
  };
}
