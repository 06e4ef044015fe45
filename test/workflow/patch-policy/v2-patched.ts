// The change ships behind patched(): a run that started on v1 keeps its one step.
import { patched } from '@temporalio/workflow';
import { fetchAndVerify, PATCH_ID, step } from './steps.js';

export const policyWorkflow = (): Promise<string> => (patched(PATCH_ID) ? fetchAndVerify() : step('fetch'));
