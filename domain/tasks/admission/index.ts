// Admission, the one owner of starting runs (service.ts): every way a run starts goes through it,
// a submission (its Origin: the API, a sync request, a schedule's run), a dispatch when a slot
// frees, the workers' watcher and the sweep.
export type { Acceptance, NewTaskValues } from './accept.js';
export { START_CLAIM_MS } from './claim.js';
export { type Accepted, type Origin, startInline, startSync, type SyncSteps } from './origin.js';
export { runDetails, runSummary } from './run.js';
export { Admission, type AdmissionDeps, type Started } from './service.js';
export { AfterAnswer } from './starter.js';
export { watchQueue } from './watch.js';
