// The Temporal task queues of one deployment, derived from TEMPORAL_TASK_QUEUE. Sync exports have a
// queue of their own, served by the same worker processes with slots of their own, so a caller
// waiting on a small export never waits behind the workflow tasks of exports already running
// (docs/adr/0053-embedded-worker-process.md).
export const syncTaskQueue = (taskQueue: string): string => `${taskQueue}-sync`;
