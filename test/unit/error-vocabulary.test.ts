// The one error vocabulary (docs/adr/0023-one-error-vocabulary.md): every code has its HTTP status,
// and an activity's boundary turns what domain code throws into the failure a workflow reads.
import { CancelledFailure } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { atBoundary, toActivityFailure } from '../../activities/failure.js';
import { STATUS } from '../../api/errors.js';
import { DomainError } from '../../domain/errors.js';
import { API_ERROR_CODES, REQUEST_ERROR_CODES, TASK_ERROR_CODES, taskErrorCode } from '../../model/errors.js';

function failureOf(err: unknown): ApplicationFailure {
  const out = toActivityFailure(err);
  expect(out).toBeInstanceOf(ApplicationFailure);
  return out as ApplicationFailure;
}

describe('the vocabulary', () => {
  it('gives every API code an HTTP error status, and no code outside the vocabulary one', () => {
    expect(Object.keys(STATUS).sort()).toEqual([...API_ERROR_CODES].sort());
    for (const code of API_ERROR_CODES) expect(STATUS[code], code).toBeGreaterThanOrEqual(400);
    expect(new Set(API_ERROR_CODES).size).toBe(API_ERROR_CODES.length);
  });

  it('keeps a failed export in the gateway/server range unless the request was at fault', () => {
    expect(STATUS.source_unreachable).toBe(502);
    expect(STATUS.template_invalid).toBe(502);
    expect(STATUS.export_too_large).toBe(422);
    expect(STATUS.too_many_parts).toBe(422);
    expect(STATUS.internal_error).toBe(500);
  });

  it("answers a failed export 4xx or 502 for the source's or its data's fault, 500 for ours alone", () => {
    // A value that does not fit its column is the data's: render_failed is thrown on data only.
    expect(STATUS.render_failed).toBe(422);
    const ours = TASK_ERROR_CODES.filter((c) => STATUS[c] >= 500 && STATUS[c] !== 502);
    expect([...ours].sort()).toEqual(['internal_error', 'storage_failed']);
  });

  it('holds every documented task code, apart from the request codes', () => {
    expect(TASK_ERROR_CODES).toEqual(
      expect.arrayContaining(['source_unreachable', 'source_bad_response', 'source_changed', 'render_failed', 'storage_failed', 'template_invalid', 'export_too_large', 'too_many_parts', 'internal_error']),
    );
    expect(REQUEST_ERROR_CODES.filter((c) => (TASK_ERROR_CODES as readonly string[]).includes(c))).toEqual([]);
  });

  it('reads any other failure type as internal_error', () => {
    expect(taskErrorCode('source_changed')).toBe('source_changed');
    for (const other of ['Error', 'ApplicationFailure', 'waiting_for_slot', 'not_found', '', null, undefined]) expect(taskErrorCode(other)).toBe('internal_error');
  });
});

describe('toActivityFailure', () => {
  it('turns a DomainError with a task code into a non-retryable failure of that type', () => {
    const f = failureOf(new DomainError('source_bad_response', 'source answered HTTP 404 for page 3'));
    expect(f).toMatchObject({ type: 'source_bad_response', message: 'source answered HTTP 404 for page 3', nonRetryable: true });
  });

  it('keeps a transient one retryable, with the delay it names', () => {
    const f = failureOf(DomainError.transient('source_unreachable', 'source answered HTTP 429', 30_000));
    expect(f).toMatchObject({ type: 'source_unreachable', nonRetryable: false, nextRetryDelay: 30_000 });
    expect(failureOf(DomainError.transient('source_unreachable', 'ECONNRESET')).nextRetryDelay).toBeUndefined();
  });

  it('turns anything unknown into internal_error, left to the retry policy, saying what it was', () => {
    const raw = failureOf(Object.assign(new Error("ENAMETOOLONG: name too long, open '/data/x.csv'"), { code: 'ENAMETOOLONG' }));
    expect(raw).toMatchObject({ type: 'internal_error', nonRetryable: false });
    expect(raw.message).toContain('ENAMETOOLONG');
    const request = failureOf(DomainError.notFound('task t-1'));
    expect(request).toMatchObject({ type: 'internal_error', message: 'not_found: task t-1 was not found' });
    expect(failureOf('a string').type).toBe('internal_error');
  });

  it("leaves Temporal's own failures and an abort as they are", () => {
    const slot = ApplicationFailure.create({ type: 'waiting_for_slot', message: 'busy', nextRetryDelay: 2000 });
    expect(toActivityFailure(slot)).toBe(slot);
    const cancelled = new CancelledFailure('cancelled');
    expect(toActivityFailure(cancelled)).toBe(cancelled);
    const abort = new DOMException('aborted', 'AbortError');
    expect(toActivityFailure(abort)).toBe(abort);
  });

  it('is applied to every function of a factory, results untouched', async () => {
    const acts = atBoundary({
      ok: async (n: number) => n + 1,
      bad: async () => {
        throw new DomainError('render_failed', 'staged piece 1 is not valid JSON lines');
      },
    });
    expect(await acts.ok(1)).toBe(2);
    await expect(acts.bad()).rejects.toMatchObject({ name: 'ApplicationFailure', type: 'render_failed', nonRetryable: true });
  });
});
