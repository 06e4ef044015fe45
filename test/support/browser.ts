// Headless Chromium for the console's browser test: Debian's /usr/bin/chromium (`.ci/run` installs
// it) driven by playwright-core. Missing, it is a failure that says how to install it, never a skip.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`the console test needs Chromium at ${CHROMIUM}: install it with \`apt-get update && apt-get install -y chromium\` (.ci/run does this on a fresh machine)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}

/** Builds the console from its sources (console/dist/), so the test runs what the sources say. */
export function buildConsole(): void {
  execFileSync(process.execPath, [resolve(import.meta.dirname, '../../scripts/build-console.mjs')], { stdio: 'pipe' });
}
