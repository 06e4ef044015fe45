export { exportWorkflow } from './export.js';
