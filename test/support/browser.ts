// Headless Chromium for the console's browser tests, driven by playwright-core: Debian's
// /usr/bin/chromium when installed, else the one scripts/test-tools.mjs unpacked from the npm
// package @sparticuz/chromium into .tools/chromium. Missing both, a failure that says what to run.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { bundledChromium, systemChromium } from '../../scripts/test-tools.mjs';

export async function launchChromium(): Promise<Browser> {
  const executablePath = systemChromium ?? bundledChromium;
  if (!existsSync(executablePath)) {
    throw new Error(`the browser tests need Chromium: run \`node scripts/test-tools.mjs\` (unpacks @sparticuz/chromium into .tools/) or \`apt-get install -y chromium\``);
  }
  const env = systemChromium ? undefined : { ...process.env, FONTCONFIG_FILE: bundledFontConfig(executablePath) };
  return chromium.launch({ executablePath, env, headless: true, args: ['--no-sandbox'] });
}

/**
 * A fontconfig file for the bundled Chromium: the one it ships names the directories of AWS Lambda
 * (/var/task/fonts, /tmp/fonts), so on a machine without them it found no font at all and its page
 * crashed at the first form field. This one names the fonts it unpacked and the system's, if any.
 */
function bundledFontConfig(executablePath: string): string {
  const home = join(executablePath, '..');
  const dirs = [join(home, 'fonts', 'fonts'), '/usr/share/fonts'].filter((d) => existsSync(d));
  const file = join(home, 'dc-fonts.conf');
  const xml = ['<?xml version="1.0"?>', '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">', '<fontconfig>', ...dirs.map((d) => `  <dir>${d}</dir>`), `  <cachedir>${join(home, 'fonts-cache')}</cachedir>`, '</fontconfig>', ''];
  writeFileSync(file, xml.join('\n'));
  return file;
}

/** Builds the console from its sources (console/dist/), so the test runs what the sources say. */
export function buildConsole(): void {
  execFileSync(process.execPath, [resolve(import.meta.dirname, '../../scripts/build-console.mjs')], { stdio: 'pipe' });
}
