// The runs this process has promised to start: a submission's run is queued in its RunStarter
// (starter.ts) until a start slot frees. Under a burst that queue can be older than
// STALE_ADMISSION_MS, and the sweep (admission.ts) would then start the same runs a second time
// through the task queue: idempotent, but it doubles the StartWorkflow calls and the project
// reads just when the Temporal server is the bottleneck (ADR 0020). The sweep leaves these to the
// starter; one in another process, or left by a crash, is not here and is swept.
const owed = new Set<string>();

export const oweStart = (taskId: string): void => void owed.add(taskId);
export const startPaid = (taskId: string): void => void owed.delete(taskId);
export const startOwedHere = (taskId: string): boolean => owed.has(taskId);
