// Step 2: no call left. Also what the change would be without its guard.
import { fetchAndVerify } from './steps.js';

export const policyWorkflow = (): Promise<string> => fetchAndVerify();
