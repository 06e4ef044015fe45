// The secrets kept in DATA_DIR/secrets.json (platform/secrets.ts): generated once and read back on
// the next start; one given in the environment is used and never written to the file.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config.js';
import { loadSecrets } from '../../platform/secrets.js';

const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'dc-secrets-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const file = (dir: string) => JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8')) as Record<string, string | undefined>;

describe('loadSecrets', () => {
  it('generates what is unset, keeps it in DATA_DIR and reads the same values on the next start', () => {
    const dir = dataDir();
    const first = loadSecrets(loadConfig({ DATA_DIR: dir }));
    expect(first.adminTokenGenerated).toBe(true);
    const again = loadSecrets(loadConfig({ DATA_DIR: dir }));
    expect(again).toEqual(first);
    expect(file(dir)).toEqual({ adminToken: first.adminToken, linkSecret: first.linkSecret, destinationKey: first.destinationKeys[0] });
  });

  it('never writes a value given in the environment to the file', () => {
    const dir = dataDir();
    const generated = loadSecrets(loadConfig({ DATA_DIR: dir }));
    const env = { ADMIN_TOKEN: 'admin-token-from-the-environment', LINK_SECRET: 'link-secret-from-the-environment' };
    const secrets = loadSecrets(loadConfig({ DATA_DIR: dir, ...env }));
    expect(secrets).toMatchObject({ adminToken: env.ADMIN_TOKEN, linkSecret: env.LINK_SECRET, adminTokenGenerated: false, destinationKeys: generated.destinationKeys });
    const written = readFileSync(join(dir, 'secrets.json'), 'utf8');
    expect(written).not.toContain(env.ADMIN_TOKEN);
    expect(written).not.toContain(env.LINK_SECRET);
    // What the file held before stays: unset again, the earlier values come back.
    expect(file(dir)).toEqual({ adminToken: generated.adminToken, linkSecret: generated.linkSecret, destinationKey: generated.destinationKeys[0] });
    const fresh = dataDir();
    loadSecrets(loadConfig({ DATA_DIR: fresh, ...env }));
    expect(Object.keys(file(fresh))).toEqual(['destinationKey']);
  });
});
