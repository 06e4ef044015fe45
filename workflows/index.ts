export { callbackWorkflow } from './callback.js';
export { cleanupWorkflow } from './cleanup.js';
export { emailWorkflow } from './email.js';
export { exportWorkflow } from './export.js';
export { syncExportWorkflow } from './sync-export.js';
export { admissionSweepWorkflow } from './admission.js';
export { scheduledRunWorkflow } from './scheduled-run.js';
