// The thread side of page-encoder.ts: one page's body in (bytes, transferred), its staged CSV or
// JSON Lines bytes (or a Parquet export's staged values) out (transferred). Failures come back as data, because a thrown DomainError would lose its code
// and retry flag crossing threads.
import type { TaskErrorCode } from '../../model/errors.js';
import { DomainError } from '../errors.js';
import { parsePage } from '../source/client.js';
import { checkPage } from '../source/polite.js';
import type { Column } from '../formats/columns.js';
import type { CsvStyle } from '../formats/csv/encode.js';
import { transcoderFor } from '../formats/csv/transcode.js';
import { jsonlTranscoderFor } from '../formats/jsonl-transcode.js';
import { encodeGroups } from '../formats/parquet/groups.js';
import { valuesTranscoderFor } from '../formats/parquet/transcode.js';
import { type MaskJob, pageMasker } from '../formats/mask/rows.js';
import { encodeStaged } from './pieces.js';

export interface EncodeTask {
  body: Uint8Array;
  page: number;
  where: string;
  probed: { total: number; pageSize: number };
  columns: Column[];
  /** What the page becomes (absent: csv, as before JSON Lines); pqv: a Parquet export's staged values. */
  ext?: 'csv' | 'jsonl' | 'pqv';
  /** Columns to mask: the page is parsed and masked before it is encoded (the byte path would copy raw values). */
  mask?: MaskJob | undefined;
  /** csv: the task's dialect and time_zone (absent: RFC 4180, date-times as written). */
  style?: CsvStyle | undefined;
}

export type EncodeResult = { ok: true; staged: Uint8Array } | { ok: false; code: TaskErrorCode; message: string; retryable: boolean };

/** A Parquet piece's pages' staged values in, the piece with its row groups out (groups.ts). */
export interface GroupsTask {
  groups: Uint8Array[];
  columns: Column[];
}

/** The piece to store, as its parts: its row groups and values, or its values alone when the groups cannot be made. */
export function encodePiece(task: GroupsTask): Buffer[] {
  const parts = task.groups.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength));
  return encodeGroups(parts, task.columns) ?? parts;
}

/** The thread's entry: a page (EncodeTask) or a Parquet piece's row groups (GroupsTask). */
export default function encode(task: GroupsTask): Uint8Array[];
export default function encode(task: EncodeTask): EncodeResult;
export default function encode(task: EncodeTask | GroupsTask): EncodeResult | Uint8Array[] {
  return 'groups' in task ? encodePiece(task) : encodePage(task);
}

function encodePage(task: EncodeTask): EncodeResult {
  try {
    const body = Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength);
    // Plain pages go straight from JSON bytes to CSV bytes; any other is parsed (and judged) below.
    const ext = task.ext ?? 'csv';
    const fast = task.mask ? null : ext === 'csv' ? transcoderFor(task.columns, task.style).transcode(body) : ext === 'pqv' ? valuesTranscoderFor(task.columns).transcode(body) : jsonlTranscoderFor(task.columns).transcode(body);
    if (fast) {
      checkPage(fast.total, fast.rows, task.page, task.probed);
      return { ok: true, staged: 'csv' in fast ? fast.csv : 'values' in fast ? fast.values : fast.lines };
    }
    const page = parsePage(body, task.where);
    checkPage(page.total, page.data.length, task.page, task.probed);
    const rows = task.mask ? pageMasker(task.mask)(page.data) : page.data;
    return { ok: true, staged: encodeStaged(ext, rows, task.columns, task.style) };
  } catch (err) {
    // The checks above throw only task codes; anything else thrown here is the page's fault.
    if (err instanceof DomainError) return { ok: false, code: err.code as TaskErrorCode, message: err.message, retryable: err.retryable };
    return { ok: false, code: 'source_bad_response', message: (err as Error).message, retryable: false };
  }
}
