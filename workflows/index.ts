export { callbackWorkflow } from './callback.js';
export { cleanupWorkflow } from './cleanup.js';
export { exportWorkflow } from './export.js';
export { admissionSweepWorkflow } from './admission.js';
