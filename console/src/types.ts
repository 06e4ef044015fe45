// The API's shapes as the console reads them: the types generated from the OpenAPI document
// (client/src/schema.d.ts, `npm run client:generate`), so a change of an answer breaks the
// console's type check rather than its pages. Only the console's own form state is declared here.
import type { components, paths } from '../../client/src/schema.js';

type Schemas = components['schemas'];

export type Task = Schemas['Task'];
export type TaskFile = Task['files'][number];
export type TaskPage = Schemas['TaskPage'];
export type TaskEvent = Schemas['TaskEvent'];
/** A task as an operator session's token reads it (the operator's center): files and progress only. */
export type OperatorTask = Schemas['OperatorTask'];
export type OperatorTaskPage = Schemas['OperatorTaskPage'];
/** What a task row shows: either view; the fields only a project key reads may be missing. */
export type ShownTask = OperatorTask & Partial<Omit<Task, keyof OperatorTask>>;
/** The record of downloads (GET /v1/downloads, GET /v1/tasks/:id/downloads). */
export type Download = Schemas['Download'];
export type DownloadPage = Schemas['DownloadPage'];
export type DownloadCount = Schemas['DownloadCount'];
export type SubmitBody = paths['/v1/tasks']['post']['requestBody']['content']['application/json'];

/**
 * The document leaves a schedule's task free-form (its placeholders are kept as written, so the
 * submit body's own types do not hold); the console reads the fields every such body has.
 */
export type Schedule = Omit<Schemas['Schedule'], 'task'> & { task: Pick<SubmitBody, 'source_url' | 'operator_id' | 'type' | 'file_name'> };

/** The task list's filter form, as typed (strings, empty for "any"). */
export interface TaskFilters {
  operator_id: string;
  status: string;
  from: string;
  to: string;
}

export type Usage = Schemas['Usage'];
export type UsageDay = Schemas['UsageDay'];

/** The project's destinations (GET /v1/destinations) and what a test of one answers. */
export type Destination = Schemas['Destination'];
export type DestinationTest = Schemas['DestinationTest'];
/** The fields a new SFTP destination's form starts with (a fingerprint to pin, from a test). */
export type SftpDraft = Partial<Pick<Schemas['SftpDestination'], 'name' | 'host' | 'port' | 'username' | 'path' | 'host_key_sha256'>>;
