// Before the change: one step.
import { step } from './steps.js';

export const policyWorkflow = (): Promise<string> => step('fetch');
