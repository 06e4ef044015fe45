// Admission, the one owner of starting runs (docs/adr/0022-admission-one-owner.md): the slot rule,
// the admission lock, de-duplication and the submit rate live in database functions
// (db/functions/) that only this module calls, and every way a run
// starts goes through here: a submission (API, sync, schedule), a dispatch when a slot frees (a
// run ending, a cancel, a retry, a resume, a setting), the workers' watcher and the sweep.
export { type Acceptance, acceptSubmission, findDuplicate, type NewTaskValues } from './accept.js';
export { type AdmissionDeps, dispatch, type Started } from './admit.js';
export { START_CLAIM_MS } from './claim.js';
export { runDetails, runSummary } from './run.js';
export { RunStarter } from './starter.js';
export { startSubmitted, type SubmitOrigin } from './submission.js';
export { sweep, sweepProject } from './sweep.js';
export { watchQueue } from './watch.js';
