// A project's destinations: created with the endpoint (S3) or host (SFTP) checked against the
// project's destination_hosts and the secret sealed; read only within their project (another project's id
// is not found); deleted for good.
import { and, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { type DestinationRow, destinations, type ProjectRow } from '../../db/schema.js';
import { newId } from '../../platform/crypto.js';
import { open, seal, sealedWithCurrent } from '../../platform/sealed.js';
import { encodeCursor, newestFirst, olderThan } from '../cursor.js';
import { DomainError } from '../errors.js';
import { endpointRefusal } from './connect.js';
import { isSftp } from './kinds.js';
import { sftpHostRefusal } from './refusal.js';
import { privateKeyProblem } from './sftp-session.js';

interface NewS3Destination {
  name: string;
  kind: 's3';
  endpoint: string;
  region: string;
  bucket: string;
  prefix: string;
  access_key_id: string;
  secret_access_key: string;
  path_style: boolean;
}

interface NewSftpDestination {
  name: string;
  kind: 'sftp';
  host: string;
  port: number;
  username: string;
  password?: string | undefined;
  private_key?: string | undefined;
  passphrase?: string | undefined;
  host_key_sha256: string;
  path: string;
}

export type NewDestination = NewS3Destination | NewSftpDestination;

/** The most destinations a project may hold: past it, 409 limit_reached (docs/destinations.md). */
export const MAX_DESTINATIONS = 100;

/** `a/b` and `a/b/` are one prefix: kept ending in `/` (or empty), so a key is prefix + path. */
const normalPrefix = (p: string): string => (p.replace(/^\/+|\/+$/g, '') ? `${p.replace(/^\/+|\/+$/g, '')}/` : '');

export async function createDestination(db: Db, project: ProjectRow, input: NewDestination, keys: readonly string[]): Promise<DestinationRow> {
  const id = newId('dst');
  const values = input.kind === 'sftp' ? sftpValues(id, project, input, keys) : s3Values(id, project, input, keys);
  return db.transaction(async (tx) => {
    // One creator per project at a time, so the count and the insert agree.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`destinations:${project.id}`}))`);
    const [held] = await tx.select({ n: count() }).from(destinations).where(eq(destinations.projectId, project.id));
    if ((held?.n ?? 0) >= MAX_DESTINATIONS) throw new DomainError('limit_reached', `this project may have ${MAX_DESTINATIONS} destinations; delete one first`);
    const [row] = await tx
      .insert(destinations)
      .values({ ...values, id, projectId: project.id, name: input.name, createdAt: new Date() })
      .returning();
    return row!;
  });
}

const notAllowed = (field: string, refusal: string) =>
  new DomainError('destination_host_not_allowed', `${refusal} (the admin sets destination_hosts)`, { details: [{ field, message: refusal }] });

function s3Values(id: string, project: ProjectRow, input: NewS3Destination, keys: readonly string[]) {
  const refusal = endpointRefusal(input.endpoint, project.destinationHosts);
  if (refusal) throw notAllowed('endpoint', refusal);
  return {
    kind: 's3' as const,
    endpoint: new URL(input.endpoint).origin,
    region: input.region,
    bucket: input.bucket,
    prefix: normalPrefix(input.prefix),
    accessKeyId: input.access_key_id,
    // Bound to the row's id: a sealed secret copied onto another row does not open.
    secretSealed: seal(input.secret_access_key, keys, id),
    pathStyle: input.path_style,
  };
}

function sftpValues(id: string, project: ProjectRow, input: NewSftpDestination, keys: readonly string[]) {
  const refusal = sftpHostRefusal(input.host, input.port, project.destinationHosts);
  if (refusal) throw notAllowed('host', refusal);
  if (input.private_key !== undefined) {
    const problem = privateKeyProblem(input.private_key, input.passphrase);
    if (problem) throw DomainError.invalid(problem.field, problem.message);
  }
  const secret = input.private_key !== undefined ? { private_key: input.private_key, ...(input.passphrase !== undefined ? { passphrase: input.passphrase } : {}) } : { password: input.password };
  return {
    kind: 'sftp' as const,
    prefix: sftpDirectory(input.path),
    secretSealed: seal(JSON.stringify(secret), keys, id),
    sftp: {
      host: input.host.toLowerCase(),
      port: input.port,
      username: input.username,
      // OpenSSH prints it unpadded; a padded copy is the same fingerprint.
      host_key_sha256: input.host_key_sha256.replace(/=+$/, ''),
      auth: input.private_key !== undefined ? ('private_key' as const) : ('password' as const),
    },
  };
}

/** `/incoming` and `/incoming/` are one directory: kept absolute and ending in `/`, so a file's path is directory + path. */
const sftpDirectory = (p: string): string => `/${p.replace(/^\/+|\/+$/g, '')}/`.replace(/^\/\/$/, '/');

export async function findDestination(db: Db, projectId: string, id: string): Promise<DestinationRow | undefined> {
  const [row] = await db.select().from(destinations).where(and(eq(destinations.id, id), eq(destinations.projectId, projectId)));
  return row;
}

export async function ownedDestination(db: Db, projectId: string, id: string): Promise<DestinationRow> {
  const row = await findDestination(db, projectId, id);
  if (!row) throw new DomainError('destination_not_found', `no destination ${id} in this project`);
  return row;
}

export async function listDestinations(db: Db, projectId: string, q: { limit: number; cursor?: string | undefined }): Promise<{ items: DestinationRow[]; nextCursor: string | null }> {
  const w = [eq(destinations.projectId, projectId)];
  if (q.cursor) w.push(olderThan(destinations.createdAt, destinations.id, q.cursor));
  const rows = await db.select().from(destinations).where(and(...w)).orderBy(...newestFirst(destinations.createdAt, destinations.id)).limit(q.limit + 1);
  const items = rows.slice(0, q.limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > q.limit && last ? encodeCursor(last) : null };
}

export async function deleteDestination(db: Db, projectId: string, id: string): Promise<void> {
  const rows = await db.delete(destinations).where(and(eq(destinations.id, id), eq(destinations.projectId, projectId))).returning({ id: destinations.id });
  if (rows.length === 0) throw new DomainError('destination_not_found', `no destination ${id} in this project`);
}

/** The destination as the API shows it: everything but the secret. */
export function destinationJson(d: DestinationRow) {
  const common = { destination_id: d.id, name: d.name };
  if (isSftp(d)) {
    const { host, port, username, auth, host_key_sha256 } = d.sftp;
    return { ...common, kind: 'sftp' as const, host, port, username, auth, host_key_sha256, path: d.prefix, created_at: d.createdAt.toISOString() };
  }
  return {
    ...common,
    kind: 's3' as const,
    endpoint: d.endpoint ?? '',
    region: d.region ?? '',
    bucket: d.bucket ?? '',
    prefix: d.prefix,
    access_key_id: d.accessKeyId ?? '',
    path_style: d.pathStyle ?? true,
    created_at: d.createdAt.toISOString(),
  };
}

/**
 * After a key rotation (docs/destinations.md#the-server-key-and-its-rotation): every secret not
 * sealed with the first key is sealed again with it. One that no key opens is left and counted.
 */
export async function resealDestinations(db: Db, keys: readonly string[]): Promise<{ resealed: number; unreadable: string[] }> {
  const rows = await db.select({ id: destinations.id, secretSealed: destinations.secretSealed }).from(destinations);
  let resealed = 0;
  const unreadable: string[] = [];
  for (const row of rows.filter((r) => !sealedWithCurrent(r.secretSealed, keys))) {
    let plain: string;
    try {
      plain = open(row.secretSealed, keys, row.id);
    } catch {
      unreadable.push(row.id);
      continue;
    }
    // Conditional: another process re-sealing at the same time leaves one valid value either way.
    await db.update(destinations).set({ secretSealed: seal(plain, keys, row.id) }).where(and(eq(destinations.id, row.id), eq(destinations.secretSealed, row.secretSealed)));
    resealed++;
  }
  return { resealed, unreadable };
}
