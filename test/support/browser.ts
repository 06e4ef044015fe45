// Headless Chromium for the console's browser tests, driven by playwright-core: Debian's
// /usr/bin/chromium when installed, else the one scripts/test-tools.mjs unpacked from the npm
// package @sparticuz/chromium into .tools/chromium. Missing both, a failure that says what to run.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { bundledChromium, systemChromium } from '../../scripts/test-tools.mjs';

export async function launchChromium(): Promise<Browser> {
  const executablePath = systemChromium ?? bundledChromium;
  if (!existsSync(executablePath)) {
    throw new Error(`the browser tests need Chromium: run \`node scripts/test-tools.mjs\` (unpacks @sparticuz/chromium into .tools/) or \`apt-get install -y chromium\``);
  }
  // The bundled one reads the fonts it ships (it has no system fontconfig of its own).
  const env = systemChromium ? undefined : { ...process.env, FONTCONFIG_PATH: join(executablePath, '..', 'fonts') };
  return chromium.launch({ executablePath, env, headless: true, args: ['--no-sandbox'] });
}

/** Builds the console from its sources (console/dist/), so the test runs what the sources say. */
export function buildConsole(): void {
  execFileSync(process.execPath, [resolve(import.meta.dirname, '../../scripts/build-console.mjs')], { stdio: 'pipe' });
}
