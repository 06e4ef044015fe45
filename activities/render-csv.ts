// CSV: RFC 4180 (CRLF, quotes doubled), UTF-8 with a BOM by default so Excel shows Chinese text.
// Pages are encoded to CSV fragments as they are fetched; rendering is then a concatenation.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { Context } from '@temporalio/activity';
import { stringify } from 'csv-stringify/sync';
import { requireTask } from '../db/tasks.js';
import type { Column } from './columns.js';
import { type ActivityDeps, keys, type SourceMeta } from './deps.js';
import { orderedPageKeys } from './merge.js';
import { tempPath } from './tmp.js';

export interface RenderedFile {
  name: string;
  key: string;
  bytes: number;
  rows: number;
  sha256: string;
}

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** A spreadsheet must never run a cell as a formula: such text gets a leading apostrophe (OWASP). */
export function escapeFormula(s: string): string {
  return FORMULA_START.test(s) && !PLAIN_NUMBER.test(s) ? `'${s}` : s;
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return escapeFormula(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return escapeFormula(JSON.stringify(v));
}

const csvOptions = { record_delimiter: 'windows', quoted_match: undefined } as const;

export function encodeCsvRows(rows: unknown[], columns: Column[]): Buffer {
  if (rows.length === 0) return Buffer.alloc(0);
  const records = rows.map((r) => {
    const o = (r ?? {}) as Record<string, unknown>;
    return columns.map((c) => cell(o[c.key]));
  });
  return Buffer.from(stringify(records, csvOptions), 'utf8');
}

export function createRenderCsvActivities({ db, storage, config }: ActivityDeps) {
  return {
    async renderCsv({ taskId }: { taskId: string }): Promise<{ outputs: RenderedFile[] }> {
      const ctx = Context.current();
      const task = await requireTask(db, taskId);
      const meta = JSON.parse((await storage.getBuffer(keys.meta(taskId))).toString('utf8')) as SourceMeta;
      const name = `${task.fileName}.csv`;
      const tmp = tempPath(config.DATA_DIR, taskId, name);
      const out = createWriteStream(tmp, { highWaterMark: 1 << 20 });
      const hash = createHash('sha256');
      let bytes = 0;
      const write = async (buf: Buffer) => {
        hash.update(buf);
        bytes += buf.length;
        if (!out.write(buf)) await once(out, 'drain');
      };
      const bom = task.options.csv_bom !== false;
      if (bom) await write(Buffer.from('\ufeff', 'utf8'));
      await write(Buffer.from(stringify([meta.columns.map((c) => escapeFormula(c.title))], csvOptions), 'utf8'));
      let done = 0;
      for (const key of await orderedPageKeys(storage, taskId)) {
        await write(await storage.getBuffer(key));
        ctx.heartbeat({ done: ++done });
      }
      out.end();
      await once(out, 'close');
      const key = keys.output(taskId, name);
      await storage.putFile(key, tmp);
      return { outputs: [{ name, key, bytes, rows: meta.total, sha256: hash.digest('hex') }] };
    },
  };
}
