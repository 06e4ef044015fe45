// A connection to a customer's bucket. The endpoint is an outgoing address a key holder chose, so it
// gets every defence the source fetch has (domain/source/hosts.ts, docs/SECURITY.md): the project's
// destination_hosts allow-list and the literal-address check before anything is sent, and an agent
// whose lookup refuses metadata and link-local addresses at connect time (DNS rebinding), and any
// name not on the allow-list: in virtual-hosted style minio connects to `<bucket>.<host>`, a name
// the endpoint check never saw. The minio client never follows a redirect: a 3xx is an error like
// any other answer it cannot read.
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { createRequire } from 'node:module';
import type { Client } from 'minio';
import { open } from '../../platform/sealed.js';
import { DomainError } from '../errors.js';
import { checkOutgoingUrl, guardedLookup, type LookupCallback, nameAllowed } from '../source/hosts.js';
import type { S3Row } from './kinds.js';

// Loaded on first use: the embedded start never pays for minio unless it delivers (docs/performance.md).
const loadMinio = () => createRequire(import.meta.url)('minio') as typeof import('minio');

export interface Bucket {
  client: Client;
  bucket: string;
  /** Where the destination's objects go, `''` or ending in `/`. */
  prefix: string;
  /** `s3://bucket/key`: how a delivered file's place is shown. */
  urlOf(key: string): string;
  close(): void;
}

/** Why an endpoint may not be used, as the API's 422 and a delivery's failure both say it. */
export function endpointRefusal(endpoint: string, hosts: readonly string[]): string | null {
  const check = checkOutgoingUrl(endpoint, hosts);
  if (check.ok) return null;
  if (check.reason === 'invalid') return 'endpoint must be an http(s) URL without credentials';
  if (check.reason === 'blocked') return 'endpoint points at a link-local or cloud metadata address';
  return "the endpoint's host is not on the project's destination_hosts";
}

/** A client for one destination, or destination_host_not_allowed when the project's list says no. */
export function connect(row: S3Row, hosts: readonly string[], keys: readonly string[]): Bucket {
  const refusal = endpointRefusal(row.endpoint, hosts);
  if (refusal) throw new DomainError('destination_host_not_allowed', refusal);
  return openBucket(row, keys, hosts);
}

/**
 * The client alone, its connections through the guarded agent, each to a name on `hosts`: with
 * path_style false (and for AWS's global endpoint, which minio also swaps for the region's host)
 * it connects to `<bucket>.<host>`. connect() checks the endpoint first.
 */
export function openBucket(row: S3Row, keys: readonly string[], hosts: readonly string[]): Bucket {
  const url = new URL(row.endpoint);
  const useSSL = url.protocol === 'https:';
  const port = url.port || (useSSL ? '443' : '80');
  const lookup = (hostname: string, options: object, callback: LookupCallback): void => {
    if (nameAllowed(hostname, port, hosts)) return guardedLookup(hostname, options, callback);
    callback(Object.assign(new Error(`refused to connect to ${hostname}: not on the project's destination_hosts`), { code: 'ENOTALLOWED' }), []);
  };
  const agentOptions = { keepAlive: true, maxSockets: 8, lookup: lookup as never };
  const agent = useSSL ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  const client = new (loadMinio().Client)({
    endPoint: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : useSSL ? 443 : 80,
    useSSL,
    accessKey: row.accessKeyId,
    secretKey: open(row.secretSealed, keys, row.id),
    // Set, so the client never asks the bucket's location first (one request less, and no guessing).
    region: row.region,
    pathStyle: row.pathStyle,
    transportAgent: agent,
  });
  return {
    client,
    bucket: row.bucket,
    prefix: row.prefix,
    urlOf: (key) => `s3://${row.bucket}/${key}`,
    close: () => agent.destroy(),
  };
}
