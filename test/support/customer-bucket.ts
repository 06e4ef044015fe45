// The customer's side of a delivery: a SeaweedFS of its own with a bucket and users of the
// customer's (one who may write there, one who may only read), and an admin client the test reads
// the bucket with, as the customer would.
import { createHash } from 'node:crypto';
import { Client } from 'minio';
import { type S3Server, startS3Server } from './s3-server.js';

export const BUCKET = 'customer-bucket';
export const WRITER = { accessKey: 'customer-writer', secretKey: 'customer-writer-secret-0123' };
export const READER = { accessKey: 'customer-reader', secretKey: 'customer-reader-secret-0123' };
/** May write and delete objects, but not list the bucket (nor the multipart uploads in it). */
export const PUTTER = { accessKey: 'customer-putter', secretKey: 'customer-putter-secret-0123' };
/** May write to a bucket that does not exist (a destination whose bucket was never made, or deleted). */
export const MISSING = { bucket: 'missing-bucket', accessKey: 'customer-missing', secretKey: 'customer-missing-secret-0123' };

export interface CustomerBucket {
  s3: S3Server;
  admin: Client;
  /** Every object under a prefix: key → bytes. */
  objects(prefix: string): Promise<Map<string, Buffer>>;
  /** Open multipart uploads under a prefix. */
  incomplete(prefix: string): Promise<{ key: string; uploadId: string }[]>;
  stop(): Promise<void>;
}

export async function startCustomerBucket(): Promise<CustomerBucket> {
  const s3 = await startS3Server({
    identities: [
      { name: 'writer', ...WRITER, actions: [`Read:${BUCKET}`, `Write:${BUCKET}`, `List:${BUCKET}`] },
      { name: 'reader', ...READER, actions: [`Read:${BUCKET}`, `List:${BUCKET}`] },
      { name: 'putter', ...PUTTER, actions: [`Write:${BUCKET}`] },
      { name: 'missing', accessKey: MISSING.accessKey, secretKey: MISSING.secretKey, actions: [`Read:${MISSING.bucket}`, `Write:${MISSING.bucket}`, `List:${MISSING.bucket}`] },
    ],
  });
  const url = new URL(s3.endpoint);
  const admin = new Client({ endPoint: url.hostname, port: Number(url.port), useSSL: false, accessKey: s3.accessKey, secretKey: s3.secretKey, region: 'us-east-1', pathStyle: true });
  await admin.makeBucket(BUCKET, 'us-east-1');
  const read = async (key: string) => {
    const chunks: Buffer[] = [];
    for await (const c of await admin.getObject(BUCKET, key)) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  };
  return {
    s3,
    admin,
    async objects(prefix) {
      const out = new Map<string, Buffer>();
      for await (const item of admin.listObjectsV2(BUCKET, prefix, true)) {
        const name = (item as { name?: string }).name;
        if (name) out.set(name, await read(name));
      }
      return out;
    },
    async incomplete(prefix) {
      const out: { key: string; uploadId: string }[] = [];
      for await (const u of admin.listIncompleteUploads(BUCKET, prefix, true)) out.push({ key: u.key, uploadId: u.uploadId });
      return out;
    },
    stop: () => s3.stop(),
  };
}

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
