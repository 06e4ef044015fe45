// The thread side of page-encoder.ts: one page's body in (bytes, transferred), its staged CSV bytes
// out (transferred). Failures come back as data, because a thrown ApplicationFailure would lose its
// type and retry flag crossing threads.
import { ApplicationFailure } from '@temporalio/common';
import { parsePage } from '../source/client.js';
import { checkPage } from '../source/polite.js';
import type { Column } from '../formats/columns.js';
import { transcoderFor } from '../formats/csv/transcode.js';
import { encodeStaged } from './pieces.js';

export interface EncodeTask {
  body: Uint8Array;
  page: number;
  where: string;
  probed: { total: number; pageSize: number };
  columns: Column[];
}

export type EncodeResult = { ok: true; staged: Uint8Array } | { ok: false; type: string; message: string; nonRetryable: boolean };

export default function encodePage(task: EncodeTask): EncodeResult {
  try {
    const body = Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength);
    // Plain pages go straight from JSON bytes to CSV bytes; any other is parsed (and judged) below.
    const fast = transcoderFor(task.columns).transcode(body);
    if (fast) {
      checkPage(fast.total, fast.rows, task.page, task.probed);
      return { ok: true, staged: fast.csv };
    }
    const page = parsePage(body, task.where);
    checkPage(page.total, page.data.length, task.page, task.probed);
    return { ok: true, staged: encodeStaged('csv', page.data, task.columns) };
  } catch (err) {
    if (err instanceof ApplicationFailure) return { ok: false, type: err.type ?? 'source_bad_response', message: err.message, nonRetryable: err.nonRetryable === true };
    return { ok: false, type: 'source_bad_response', message: (err as Error).message, nonRetryable: true };
  }
}
