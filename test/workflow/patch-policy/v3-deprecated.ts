// Step 1 of retirement: deprecatePatch, the new branch the only code.
import { deprecatePatch } from '@temporalio/workflow';
import { fetchAndVerify, PATCH_ID } from './steps.js';

export function policyWorkflow(): Promise<string> {
  deprecatePatch(PATCH_ID);
  return fetchAndVerify();
}
