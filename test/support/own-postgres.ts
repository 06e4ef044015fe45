// A Postgres of the test's own, for the fault tests that stop and restart the database
// (test/e2e/db-restart.test.ts): Debian's binaries, initdb into a temporary folder, a free port, so
// the suite's shared server on 127.0.0.1:5432 is never touched. initdb refuses to run as root, so
// as root every command runs as the `postgres` user in a folder that user owns.
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';

const run = promisify(execFile);

/** Debian's server binaries (postgresql-NN), the newest installed. */
export function pgBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  if (!versions.length) throw new Error('no Postgres server binaries under /usr/lib/postgresql (apt-get install postgresql)');
  return join(root, versions.sort((a, b) => Number(b) - Number(a))[0]!, 'bin');
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
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(root, Number(stdout.trim()), Number(gid.trim()));
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
