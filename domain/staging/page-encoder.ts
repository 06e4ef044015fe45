// CSV pages can be parsed and encoded off the thread that runs the requests, the activities and (in
// the embedded start) PGlite: JSON.parse, the UTF-8 decode and the CSV encoding are ~55 % of an
// export's CPU there (docs/performance.md). piscina keeps the thread pool (lazily started, stopped
// when idle). Off by default (SOURCE_DECODE_THREADS=0): on 2 cores a thread costs more CPU than
// it frees (the bytes cross twice, a second heap collects; ADR 0019); it is for workers with cores
// to spare.
import type { Piscina } from 'piscina';
import { DomainError } from '../errors.js';
import type { Column } from '../formats/columns.js';
import { type MaskJob, pageMasker } from '../formats/mask/rows.js';
import type { CsvStyle } from '../formats/csv/encode.js';
import { pageWhere, type SourcePage } from '../source/client.js';
import { checkPage } from '../source/polite.js';
import { encodeStaged, type StagedExt } from './pieces.js';
import encodeHere, { type EncodeResult, type EncodeTask, encodePiece, type GroupsTask } from './page-encoder.worker.js';

// From the TypeScript sources (tsx, vitest) the thread needs tsx too; dist/ runs plain JavaScript.
const fromSources = import.meta.url.endsWith('.ts');
const workerFile = new URL(`./page-encoder.worker.${fromSources ? 'ts' : 'js'}`, import.meta.url).href;

export class PageEncoder {
  private pool: Piscina | undefined;
  private groupPool: Piscina | undefined;

  /**
   * `threads`: for pages (SOURCE_DECODE_THREADS); `groupThreads`: for a Parquet piece's row groups
   * (PARQUET_ENCODE_THREADS): 0, on the calling thread.
   */
  constructor(
    private readonly threads: number,
    private readonly groupThreads = 0,
  ) {}

  /**
   * A Parquet piece's body from its pages' staged values: its row groups encoded (ADR 0056), on a
   * thread of their own when PARQUET_ENCODE_THREADS gives one (off by default: slower on 2 cores),
   * so the lanes' thread goes on fetching and transcoding meanwhile (the pages cross by copy: the
   * lane keeps them until the piece is stored). A thread that fails leaves the values alone: the
   * render encodes them.
   */
  async piece(parts: Buffer[], columns: Column[]): Promise<Buffer[]> {
    if (this.groupThreads === 0) return encodePiece({ groups: parts, columns });
    try {
      const { Piscina } = await import('piscina');
      this.groupPool ??= new Piscina({ filename: workerFile, minThreads: 0, maxThreads: this.groupThreads, idleTimeout: 30_000, ...(fromSources ? { execArgv: ['--import', 'tsx'] } : {}) });
      const out = (await this.groupPool.run({ groups: parts, columns } satisfies GroupsTask)) as Uint8Array[];
      return out.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength));
    } catch {
      return parts;
    }
  }

  /** The staged CSV (or JSON Lines) bytes of one fetched page, after the same checks as on the calling thread. */
  async encode(body: Buffer, page: number, pageSize: number, probed: { total: number; pageSize: number }, columns: Column[], ext: 'csv' | 'jsonl' | 'pqv' = 'csv', style?: CsvStyle, mask?: MaskJob): Promise<Buffer> {
    const task: EncodeTask = { body, page, where: pageWhere(page, pageSize), probed, columns, ext, style, mask };
    const result: EncodeResult = this.threads > 0 ? await this.run(task) : encodeHere(task);
    if (!result.ok) {
      throw new DomainError(result.code, result.message, { retryable: result.retryable });
    }
    return Buffer.from(result.staged.buffer, result.staged.byteOffset, result.staged.byteLength);
  }

  /**
   * The staged fragment of one fetched page: a CSV, JSON Lines or Parquet export's page bytes
   * transcoded (above; Parquet's to the columns' staged values), an Excel export's parsed page checked
   * against the probe and kept as JSON lines. Masked columns are masked here, before anything is
   * staged. `style`: a CSV task's dialect and time_zone.
   */
  async stage(answer: Buffer | SourcePage, page: number, probed: { total: number; pageSize: number; columns: Column[] }, ext: StagedExt, style?: CsvStyle, mask?: MaskJob): Promise<Buffer> {
    // A Parquet export's page bytes become its staged values (ADR 0056), a JSON Lines export's its lines.
    if (Buffer.isBuffer(answer)) return this.encode(answer, page, probed.pageSize, probed, probed.columns, ext === 'csv' ? 'csv' : ext === 'pqv' ? 'pqv' : 'jsonl', style, mask);
    checkPage(answer.total, answer.data.length, page, probed);
    return encodeStaged(ext, mask ? pageMasker(mask)(answer.data) : answer.data, probed.columns, style);
  }

  private async run(task: EncodeTask): Promise<EncodeResult> {
    // Loaded on first use: an idle process (or one with no threads configured) does not hold it.
    const { Piscina } = await import('piscina');
    this.pool ??= new Piscina({
      filename: workerFile,
      minThreads: 0,
      maxThreads: this.threads,
      idleTimeout: 30_000,
      ...(fromSources ? { execArgv: ['--import', 'tsx'] } : {}),
    });
    // The page's bytes move to the thread (no copy) when the Buffer owns its whole memory.
    const owned = task.body.byteOffset === 0 && task.body.byteLength === task.body.buffer.byteLength;
    return this.pool.run(task, owned ? { transferList: [task.body.buffer as ArrayBuffer] } : {});
  }

  async close(): Promise<void> {
    await Promise.all([this.pool?.destroy(), this.groupPool?.destroy()]);
  }
}
