// The example workflow of the patch-policy test (test/workflow/patch-policy.test.ts), in the four
// versions a change goes through (docs/adr/0040-workflow-versioning-from-1.0.md): each version's
// file exports `policyWorkflow`, the same type, bundled on its own. The change: a `verify` step
// after `fetch`.
import { proxyActivities } from '@temporalio/workflow';

export interface PolicyActivities {
  step(name: string): Promise<string>;
}

export const PATCH_ID = 'dc-policy-example';

export const { step } = proxyActivities<PolicyActivities>({ startToCloseTimeout: '1 minute' });

/** The changed version's steps. */
export const fetchAndVerify = async (): Promise<string> => `${await step('fetch')}+${await step('verify')}`;
