// @download-center/client: the typed client of the Download Center API (docs/api-clients.md).
export { DownloadCenter, FINAL_STATUSES, type ClientOptions, type Download, type DownloadQuery, type ListQuery, type OperatorSession, type OperatorSessionBody, type SubmitBody, type Task, type TaskPage, type TaskStatus, type Usage, type UsageDay, type WaitOptions } from './client.js';
export { CallbackVerificationError, verifyCallback, verifySchedulePaused, type CallbackEvent, type CallbackHeaders, type SchedulePausedEvent } from './callback.js';
export { DownloadCenterError } from './errors.js';
export type { TaskEvent, WatchOptions } from './watch.js';
export type { components, paths, webhooks } from './schema.js';
