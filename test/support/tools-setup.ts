// Global setup of `npm run test:fast`: the outside tools the unit tests use (the Python readers,
// zstandard), installed into .tools/ on the first run; a few file checks on every later one.
export { ensureReaderTools as setup } from '../../scripts/test-tools.mjs';
