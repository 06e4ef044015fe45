// ADMIN_TOKEN, LINK_SECRET and DESTINATION_KEYS default to values generated once and kept in
// DATA_DIR, so that links, the admin token and sealed destination secrets survive a restart of the
// embedded service.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.js';
import { randomToken } from './crypto.js';

export interface Secrets {
  adminToken: string;
  linkSecret: string;
  adminTokenGenerated: boolean;
  /** Seal and open destinations' secrets (platform/sealed.ts): the first seals, every one opens. */
  destinationKeys: string[];
}

export function loadSecrets(config: Config): Secrets {
  const file = join(config.DATA_DIR, 'secrets.json');
  let stored: Partial<Record<'adminToken' | 'linkSecret' | 'destinationKey', string>> = {};
  if (existsSync(file)) stored = JSON.parse(readFileSync(file, 'utf8'));
  const adminToken = config.ADMIN_TOKEN ?? stored.adminToken ?? `adm_${randomToken()}`;
  const linkSecret = config.LINK_SECRET ?? stored.linkSecret ?? randomToken(32);
  const destinationKey = stored.destinationKey ?? randomToken(32);
  if (!config.ADMIN_TOKEN || !config.LINK_SECRET || !config.DESTINATION_KEYS) {
    // Only what was generated or read from the file: a value given in the environment never lands on disk.
    const kept = {
      adminToken: config.ADMIN_TOKEN ? stored.adminToken : adminToken,
      linkSecret: config.LINK_SECRET ? stored.linkSecret : linkSecret,
      destinationKey: config.DESTINATION_KEYS ? stored.destinationKey : destinationKey,
    };
    mkdirSync(config.DATA_DIR, { recursive: true });
    writeFileSync(file, JSON.stringify(kept), { mode: 0o600 });
  }
  return { adminToken, linkSecret, adminTokenGenerated: !config.ADMIN_TOKEN, destinationKeys: config.DESTINATION_KEYS ?? [destinationKey] };
}
