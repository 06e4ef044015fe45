// The pure pieces of destinations: sealed secrets (rotation, tampering, the row they belong to),
// destination_path's rules and keys, the parts a file is cut into, and how failures are named.
import { Readable } from 'node:stream';
import { CancelledFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { classify, deliveryError, explain } from '../../domain/destinations/failures.js';
import { newHash, partsOf } from '../../domain/destinations/parts.js';
import { objectKey, pathProblem } from '../../domain/destinations/path.js';
import { DomainError } from '../../domain/errors.js';
import { loadConfig } from '../../platform/config.js';
import { keyId, open, SealError, seal, sealedWithCurrent } from '../../platform/sealed.js';

const OLD = 'old-destination-key-0123456789abcdef';
const NEW = 'new-destination-key-0123456789abcdef';

describe('sealed secrets', () => {
  it('opens with the key it was sealed with, wherever that key is in the list (rotation)', () => {
    const sealed = seal('s3cr3t', [OLD], 'dst_1');
    expect(sealed).not.toContain('s3cr3t');
    expect(sealed.split('.')[1]).toBe(keyId(OLD));
    expect(open(sealed, [NEW, OLD], 'dst_1')).toBe('s3cr3t');
    expect(sealedWithCurrent(sealed, [NEW, OLD])).toBe(false);
    expect(sealedWithCurrent(seal('s3cr3t', [NEW, OLD], 'dst_1'), [NEW, OLD])).toBe(true);
    // Two seals of one secret differ (a fresh IV each time).
    expect(seal('s3cr3t', [OLD], 'dst_1')).not.toBe(sealed);
  });

  it('refuses a dropped key, another row, and any changed byte', () => {
    const sealed = seal('s3cr3t', [OLD], 'dst_1');
    expect(() => open(sealed, [NEW], 'dst_1')).toThrow(SealError);
    expect(() => open(sealed, [OLD], 'dst_2')).toThrow(SealError);
    const parts = sealed.split('.');
    const body = Buffer.from(parts[4]!, 'base64url');
    body[0]! ^= 1;
    parts[4] = body.toString('base64url');
    expect(() => open(parts.join('.'), [OLD], 'dst_1')).toThrow(SealError);
    expect(() => open('plain', [OLD], 'dst_1')).toThrow(SealError);
  });

  it('reads DESTINATION_KEYS as a list of long keys', () => {
    expect(loadConfig({ DESTINATION_KEYS: ` ${NEW} , ${OLD} ` }).DESTINATION_KEYS).toEqual([NEW, OLD]);
    expect(() => loadConfig({ DESTINATION_KEYS: 'short' })).toThrow(/DESTINATION_KEYS/);
    expect(() => loadConfig({ DELIVERY_PART_BYTES: '1000' })).toThrow(/DELIVERY_PART_BYTES/);
  });
});

describe('destination_path', () => {
  it('takes known placeholders with {{file_name}} in the last segment', () => {
    expect(pathProblem('{{date}}/{{task_id}}/{{file_name}}')).toBeNull();
    expect(pathProblem('exports/{{ task_id }}-{{file_name}}')).toBeNull();
    for (const bad of ['{{date}}/x.csv', '{{file_name}}/x', '{{when}}/{{file_name}}', '/{{file_name}}', 'a//{{file_name}}', '../{{file_name}}', 'a/./{{file_name}}', '{date}/{{file_name}}']) {
      expect(pathProblem(bad), bad).not.toBeNull();
    }
  });

  it('fills the key under the prefix; a file name stays one segment', () => {
    const v = { taskId: 'tsk_1', createdAt: new Date('2026-11-24T23:59:00Z') };
    expect(objectKey('exports/', '{{date}}/{{task_id}}-{{file_name}}', v, 'a.csv')).toBe('exports/2026-11-24/tsk_1-a.csv');
    expect(objectKey('', undefined, v, 'a/b.csv')).toBe('tsk_1/a_b.csv');
  });
});

describe('parts', () => {
  const chunks = (sizes: number[]) => Readable.from(sizes.map((n, i) => Buffer.alloc(n, i)));

  it('cuts a stream into parts of the size, the last smaller, hashing every byte', async () => {
    const hash = newHash();
    const parts = [];
    for await (const p of partsOf(chunks([3, 7, 1, 4]), 5, 1, hash)) parts.push([p.number, p.body.length]);
    expect(parts).toEqual([[1, 5], [2, 5], [3, 5]]);
    const whole = Buffer.concat([3, 7, 1, 4].map((n, i) => Buffer.alloc(n, i)));
    expect(hash.digest('hex')).toBe(newHash().update(whole).digest('hex'));
  });

  it('skips the parts before `from`, still hashing them', async () => {
    const hash = newHash();
    const parts = [];
    for await (const p of partsOf(chunks([12]), 5, 3, hash)) parts.push([p.number, p.body.length]);
    expect(parts).toEqual([[3, 2]]);
    expect(hash.digest('hex')).toBe(newHash().update(Buffer.alloc(12, 0)).digest('hex'));
  });
});

describe('failures', () => {
  it('names them by S3 code, network error and TLS', () => {
    const e = (code: string, message = 'x') => Object.assign(new Error(message), { code });
    expect(classify(e('SignatureDoesNotMatch'))).toBe('auth');
    expect(classify(e('InvalidAccessKeyId'))).toBe('auth');
    expect(classify(e('NoSuchBucket'))).toBe('bucket');
    expect(classify(e('AccessDenied'))).toBe('permission');
    expect(classify(e('ENOTFOUND'))).toBe('dns');
    expect(classify(e('ECONNREFUSED'))).toBe('connect');
    expect(classify(e('delivery_timeout'))).toBe('timeout');
    expect(classify(e('EPROTO', 'wrong version number'))).toBe('tls');
    expect(classify(e('DEPTH_ZERO_SELF_SIGNED_CERT'))).toBe('tls');
    expect(classify(e('EBLOCKED'))).toBe('blocked');
    expect(classify(new DomainError('destination_host_not_allowed', 'no'))).toBe('host_not_allowed');
    expect(classify(e('InternalError'))).toBe('unknown');
  });

  it('asks whether the bucket exists within the deadline: a bucket that never answers leaves it a permission failure', async () => {
    const denied = Object.assign(new Error('Access Denied'), { code: 'AccessDenied' });
    const silent = { bucket: 'b', client: { bucketExists: () => new Promise<boolean>(() => {}) } };
    expect(await explain(denied, silent, 50)).toBe('permission');
    expect(await explain(denied, { bucket: 'b', client: { bucketExists: async () => false } }, 50)).toBe('bucket');
  });

  it("a delivery's failure: what is named already passes, a refused request is not retried, a dropped connection is", async () => {
    const e = (code: string, message = 'x') => Object.assign(new Error(message), { code });
    const as = async (err: unknown) => (await deliveryError(err, 'dst_1', undefined, 50)) as DomainError;
    // The activity's cancellation and our own store's failure are not the bucket's.
    const cancel = new CancelledFailure('CANCELLED');
    expect(await deliveryError(cancel, 'dst_1', undefined, 50)).toBe(cancel);
    const ours = DomainError.transient('storage_failed', 'the store blinked');
    expect(await deliveryError(ours, 'dst_1', undefined, 50)).toBe(ours);
    for (const code of ['KeyTooLongError', 'InvalidArgument', 'PermanentRedirect']) {
      const failure = await as(e(code, 'Your key is too long'));
      expect(failure, code).toMatchObject({ code: 'internal_error', retryable: false });
      expect(failure.message).toContain(code);
    }
    expect(await as(e('ECONNRESET'))).toMatchObject({ code: 'destination_unreachable', retryable: true });
    expect(await as(e('InternalError'))).toMatchObject({ code: 'destination_unreachable', retryable: true });
    expect(await as(e('NoSuchBucket'))).toMatchObject({ code: 'destination_bucket_missing', retryable: false });
  });

  it('a secret sealed with a key this process lacks is retried (a rotation under way), naming DESTINATION_KEYS', async () => {
    const sealed = seal('s3cr3t', [NEW, OLD], 'dst_1');
    const thrown = (fn: () => unknown): unknown => {
      try {
        return fn();
      } catch (err) {
        return err;
      }
    };
    const lacking = thrown(() => open(sealed, [OLD], 'dst_1'));
    expect(lacking).toMatchObject({ missingKey: keyId(NEW) });
    const failure = (await deliveryError(lacking, 'dst_1', undefined, 50)) as DomainError;
    expect(failure).toMatchObject({ code: 'internal_error', retryable: true });
    expect(failure.message).toContain('DESTINATION_KEYS');
    expect(failure.message).toContain(keyId(NEW));
    // Not opening with its own key (another row's value) is no rotation: recreate the destination.
    const other = thrown(() => open(sealed, [NEW], 'dst_2'));
    expect(await deliveryError(other, 'dst_2', undefined, 50)).toMatchObject({ code: 'destination_auth_failed', retryable: false });
  });
});
