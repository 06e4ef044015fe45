// Where the service's own files are, whether it runs from the sources or from the compiled dist/.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding package.json (and .tools/, console/dist/): the parent of platform/ when run
 * from the sources, one more level up when run from the compiled dist/ (`npm run build`).
 */
export const projectRoot = ((): string => {
  const parent = fileURLToPath(new URL('..', import.meta.url));
  return existsSync(join(parent, 'package.json')) ? parent : dirname(parent.replace(/[\\/]$/, ''));
})();
