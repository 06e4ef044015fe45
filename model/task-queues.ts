// The Temporal task queues of one deployment, derived from TEMPORAL_TASK_QUEUE. Sync exports have a
// queue of their own, served by the API processes (app/sync-worker.ts): a caller waiting on a small
// export never waits behind the pages and renders of the exports a worker process is busy with
// (docs/adr/0054-sync-runs-in-the-api-process.md).
export const syncTaskQueue = (taskQueue: string): string => `${taskQueue}-sync`;
