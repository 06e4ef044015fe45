export { cleanupWorkflow } from './cleanup.js';
export { callbackWorkflow } from './callback.js';
export { exportWorkflow } from './export.js';
