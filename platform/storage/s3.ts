// The object store for multi-worker deployments (S3, MinIO, SeaweedFS): staged pages and finished
// files live in one bucket every worker and the API can read (docs/adr/0009-s3-staging-layout.md).
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type { Client } from 'minio';
import { assertKey, type ByteRange, type Storage } from './types.js';

export interface S3Options {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region: string;
}

// DeleteObjects takes at most 1000 keys per call (S3 API limit).
const DELETE_BATCH = 1000;

function notFound(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'NotFound' || code === 'NoSuchKey';
}

// Loaded when an S3 store is configured: minio and its dependencies are ~10 MB of every process's
// memory, and the embedded start (local files) never needs them (docs/performance.md).
const loadMinio = () => createRequire(import.meta.url)('minio') as typeof import('minio');

export class S3Storage implements Storage {
  readonly kind = 's3' as const;
  private readonly client: Client;
  private readonly bucket: string;
  private bucketReady: Promise<void> | undefined;

  constructor(private readonly opts: S3Options) {
    const url = new URL(opts.endpoint);
    const useSSL = url.protocol === 'https:';
    this.client = new (loadMinio().Client)({
      endPoint: url.hostname,
      port: url.port ? Number(url.port) : useSSL ? 443 : 80,
      useSSL,
      accessKey: opts.accessKey,
      secretKey: opts.secretKey,
      region: opts.region,
      // Path-style works with every S3-compatible server and needs no wildcard DNS.
      pathStyle: true,
    });
    this.bucket = opts.bucket;
  }

  /** Creates the bucket on first use when it is missing (a fresh MinIO/SeaweedFS has none). */
  private ensureBucket(): Promise<void> {
    this.bucketReady ??= (async () => {
      if (await this.client.bucketExists(this.bucket)) return;
      try {
        await this.client.makeBucket(this.bucket, this.opts.region);
      } catch (err) {
        // Another process created it meanwhile.
        const code = (err as { code?: string }).code;
        if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') throw err;
      }
    })().catch((err: unknown) => {
      this.bucketReady = undefined;
      throw err;
    });
    return this.bucketReady;
  }

  async putFile(key: string, localPath: string): Promise<void> {
    assertKey(key);
    await this.ensureBucket();
    // fPutObject streams the file (multipart above 64 MiB); the object appears only when complete.
    await this.client.fPutObject(this.bucket, key, localPath);
    await rm(localPath, { force: true });
  }

  async putBuffer(key: string, parts: Buffer | readonly Buffer[]): Promise<void> {
    assertKey(key);
    await this.ensureBucket();
    // One PUT of one body: the request is what the time goes to here, not the join.
    const body = Buffer.isBuffer(parts) ? parts : Buffer.concat(parts);
    await this.client.putObject(this.bucket, key, body, body.length);
  }

  async getBuffer(key: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.getStream(key)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async getStream(key: string, range?: ByteRange): Promise<Readable> {
    assertKey(key);
    await this.ensureBucket();
    if (range) return this.client.getPartialObject(this.bucket, key, range.start, range.end - range.start + 1);
    return this.client.getObject(this.bucket, key);
  }

  async size(key: string): Promise<number | null> {
    assertKey(key);
    await this.ensureBucket();
    try {
      return (await this.client.statObject(this.bucket, key)).size;
    } catch (err) {
      if (notFound(err)) return null;
      throw err;
    }
  }

  async list(prefix: string): Promise<string[]> {
    await this.ensureBucket();
    const dir = `${prefix.replace(/\/$/, '')}/`;
    const out: string[] = [];
    for await (const item of this.client.listObjectsV2(this.bucket, dir, true)) {
      const name = (item as { name?: string }).name;
      if (name) out.push(name);
    }
    return out.sort();
  }

  async copy(from: string, to: string): Promise<void> {
    assertKey(from);
    assertKey(to);
    await this.ensureBucket();
    // Server-side copy: the bytes never pass through this process (S3 allows up to 5 GiB, above our 1 GB cap).
    await this.client.copyObject(this.bucket, to, `/${this.bucket}/${from}`);
  }

  async move(from: string, to: string): Promise<void> {
    await this.copy(from, to);
    await this.client.removeObject(this.bucket, from);
  }

  async deletePrefix(prefix: string): Promise<void> {
    const names = await this.list(prefix);
    for (let i = 0; i < names.length; i += DELETE_BATCH) {
      await this.client.removeObjects(this.bucket, names.slice(i, i + DELETE_BATCH));
    }
  }

  async ping(): Promise<void> {
    this.bucketReady = undefined;
    await this.ensureBucket();
  }
}
