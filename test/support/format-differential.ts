// The differential format check: one world of adversarial pages (format-world.ts) served by a real
// HTTP source, exported through the real activities (probe, fetchPages with the byte transcoders,
// renderFile) as every type and compression, split by its max_file_rows; every part read back by
// the independent readers (format-readers.py) and compared value by value with what the source
// sent, by the documented rules (format-expected.ts). Used by test/unit/format-differential.test.ts
// and `npm run bench -- fuzz-formats`.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createRenderActivities } from '../../activities/render.js';
import type { ActivityDeps } from '../../activities/deps.js';
import { tasks } from '../../db/schema.js';
import { newId, randomToken } from '../../platform/crypto.js';
import type { RenderedFile } from '../../model/activities.js';
import { type FetchHarness, runActivity, startFetchHarness } from './activity-env.js';
import { csvCell, DUCKDB_TYPE, parquetType, PYARROW_TYPE, sameParquet, sameTagged, sameXlsx, shown, type Source, type Tagged, utf8, csvText, xlsxText } from './format-expected.js';
import { pageText, type World } from './format-world.js';
import { pyreadersDir } from './pyreaders.js';
import { type SourceServer, startSource } from './source-server.js';


type Kind = 'csv' | 'jsonl' | 'xlsx' | 'parquet';
interface Variant {
  id: string;
  kind: Kind;
  compression: 'gzip' | 'zstd' | null;
  /** Pages the byte transcoders give up on (a "data" member before the real one), so the ordinary path (JSON.parse, encodeCsvRows / encodeJsonLines, as the preview's) writes them. */
  ordinary?: boolean;
  /** A CSV dialect (docs/formats.md): its delimiter (tab: a .tsv file) and line ending. */
  dialect?: { csv_delimiter: ',' | ';' | '\t' | '|'; csv_line_ending?: 'lf' };
}
export const VARIANTS: Variant[] = [
  { id: 'csv', kind: 'csv', compression: null },
  { id: 'csv.gz', kind: 'csv', compression: 'gzip' },
  { id: 'csv.zst', kind: 'csv', compression: 'zstd' },
  { id: 'jsonl', kind: 'jsonl', compression: null },
  { id: 'jsonl.gz', kind: 'jsonl', compression: 'gzip' },
  { id: 'jsonl.zst', kind: 'jsonl', compression: 'zstd' },
  { id: 'csv (ordinary path)', kind: 'csv', compression: null, ordinary: true },
  { id: 'csv ; lf', kind: 'csv', compression: null, dialect: { csv_delimiter: ';', csv_line_ending: 'lf' } },
  { id: 'csv |', kind: 'csv', compression: null, dialect: { csv_delimiter: '|' } },
  { id: 'tsv', kind: 'csv', compression: null, dialect: { csv_delimiter: '\t' } },
  { id: 'tsv.gz lf', kind: 'csv', compression: 'gzip', dialect: { csv_delimiter: '\t', csv_line_ending: 'lf' } },
  { id: 'csv ; (ordinary path)', kind: 'csv', compression: null, ordinary: true, dialect: { csv_delimiter: ';' } },
  { id: 'tsv lf (ordinary path)', kind: 'csv', compression: null, ordinary: true, dialect: { csv_delimiter: '\t', csv_line_ending: 'lf' } },
  { id: 'jsonl (ordinary path)', kind: 'jsonl', compression: null, ordinary: true },
  { id: 'xlsx', kind: 'xlsx', compression: null },
  { id: 'parquet', kind: 'parquet', compression: null },
];

interface CsvPart {
  bom: boolean;
  rows: string[][];
  /** The line breaks that end its records, each once (format-readers.py). */
  line_endings: string[];
}
interface ParquetPart {
  pyarrow: { types: Array<[string, string]>; rows: Tagged[][] };
  duckdb: { names: string[]; types: Array<[string, string]>; rows: Tagged[][] };
}
type Read = { error: string } | { parts: unknown[] };

export interface Differential {
  harness: FetchHarness;
  /** Exports a world as every variant and returns every difference found (empty: all agree). */
  check(world: World): Promise<string[]>;
  close(): Promise<void>;
}

export async function startDifferential(): Promise<Differential> {
  if (!existsSync(join(pyreadersDir, 'openpyxl'))) throw new Error('openpyxl is missing from .tools/pyreaders: run `node scripts/test-tools.mjs`');
  const harness = await startFetchHarness({ MAX_EXPORT_ROWS: '1000' });
  const render = createRenderActivities({ db: harness.database.db, storage: harness.storage, config: harness.config } as unknown as ActivityDeps);
  let world: World = { rows: [], pageSize: 1 };
  // One server for every world: it answers from the world being checked (?w=pq: Parquet's).
  const source: SourceServer = await startSource({
    total: 0,
    intercept: (r) => {
      const pq = r.query.get('w') === 'pq';
      let body = pageText(world.rows, r.page, r.pageSize);
      // The probe's answer brings the template (Parquet's world has none: see World.template).
      if (world.template && !pq && r.page === 0 && r.pageSize === 1) body = `{"template":${world.template},${body.slice(1)}`;
      // JSON.parse keeps the last "data"; the byte path gives such a page up.
      return { status: 200, body: r.query.get('w') === 'ordinary' ? `{"data":[],${body.slice(1)}` : body };
    },
  });

  async function exportAs(v: Variant): Promise<RenderedFile[]> {
    const id = newId('tsk');
    const options = { ...(v.compression ? { compression: v.compression } : {}), ...(world.maxFileRows ? { max_file_rows: world.maxFileRows } : {}), ...v.dialect };
    await harness.database.db.insert(tasks).values({
      id,
      projectId: harness.projectId,
      operatorId: 'op',
      type: v.kind === 'xlsx' ? 'excel' : v.kind,
      fileName: 'fuzz',
      sourceUrl: `${source.url}?w=${v.kind === 'parquet' ? 'pq' : v.ordinary ? 'ordinary' : 'all'}`,
      pageSize: world.pageSize,
      priority: 0,
      options,
      status: 'running',
      stage: 'probing',
      requestHash: randomToken(16),
    });
    await runActivity({}, () => harness.activities.probeSource({ taskId: id })).result;
    const rows = world.rows;
    const pages = Math.ceil(rows.length / world.pageSize);
    if (pages > 0) await runActivity({}, () => harness.activities.fetchPages({ taskId: id, lane: 0, laneFromPage: 0, fromPage: 0, toPage: pages })).result;
    const { outputs } = await runActivity({}, () => render.renderFile({ taskId: id })).result;
    return outputs.filter((o) => !o.name.endsWith('.zip'));
  }

  return {
    harness,
    async check(w) {
      world = w;
      const jobs: Array<Variant & { paths: string[]; outputs: RenderedFile[] }> = [];
      const problems: string[] = [];
      for (const v of VARIANTS) {
        try {
          const outputs = await exportAs(v);
          jobs.push({ ...v, outputs, paths: outputs.map((o) => join(harness.config.DATA_DIR, 'store', ...o.key.split('/'))) });
        } catch (err) {
          problems.push(`${v.id}: the export failed: ${(err as Error).message}`);
        }
      }
      const read = await readAll(jobs);
      for (const job of jobs) {
        const r = read[job.id]!;
        if ('error' in r) problems.push(`${job.id}: the reader refused it: ${r.error}`);
        else problems.push(...compare(job, r.parts, w).map((p) => `${job.id}: ${p}`));
      }
      return problems;
    },
    async close() {
      await source.close();
      await harness.close();
    },
  };
}

function readAll(jobs: Array<Variant & { paths: string[] }>): Promise<Record<string, Read>> {
  return new Promise((resolve, reject) => {
    const child = execFile('python3', [join(import.meta.dirname, 'format-readers.py')], { env: { ...process.env, PYTHONPATH: pyreadersDir }, maxBuffer: 256 << 20 }, (err, stdout, stderr) =>
      err ? reject(new Error(`format-readers.py: ${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as Record<string, Read>),
    );
    child.stdin!.end(JSON.stringify(jobs.map(({ id, kind, compression, paths, dialect }) => ({ id, kind, compression, paths, delimiter: dialect?.csv_delimiter ?? ',' }))));
  });
}

/**
 * The source's rows as the service must read them: JSON.parse, own keys; the columns the
 * template's leaves (name, and title or else name), or the first row's keys.
 */
function sourceRows(texts: string[], template?: string): { columns: string[]; titles: string[]; rows: Array<(k: string) => Source> } {
  const parsed = texts.map((t) => JSON.parse(t) as Record<string, unknown>);
  const leaves = template ? (JSON.parse(template) as Array<{ name: string; title?: string }>) : null;
  const columns = leaves ? leaves.map((l) => l.name) : parsed.length ? Object.keys(parsed[0]!) : [];
  const titles = leaves ? leaves.map((l) => l.title || l.name) : columns;
  return { columns, titles, rows: parsed.map((o) => (k: string) => (Object.hasOwn(o, k) ? o[k] : undefined)) };
}

function compare(job: Variant & { outputs: RenderedFile[] }, parts: unknown[], world: World): string[] {
  const parquet = job.kind === 'parquet';
  const { columns, titles, rows } = sourceRows(world.rows, parquet ? undefined : world.template);
  const out: string[] = [];
  const max = world.maxFileRows ?? Infinity;
  const counts = job.outputs.map((o) => o.rows);
  if (counts.some((n) => n > max)) out.push(`a part holds more than max_file_rows ${max}: ${counts.join(', ')}`);
  const check = (what: string, ok: boolean) => ok || out.push(what);
  // Each part's data rows, in order, with what each reader saw.
  const got: Array<(col: number) => string | Tagged> = [];
  if (job.kind === 'csv') {
    const ext = job.dialect?.csv_delimiter === '\t' ? 'tsv' : 'csv';
    for (const o of job.outputs) check(`${o.name} is not named .${ext}`, o.name.endsWith(`.${ext}${job.compression ? (job.compression === 'gzip' ? '.gz' : '.zst') : ''}`));
  }
  parts.forEach((p, n) => {
    const where = `part ${n + 1}`;
    if (job.kind === 'csv') {
      const { bom, rows: lines, line_endings: ends } = p as CsvPart;
      check(`${where}: no BOM`, bom);
      const eol = job.dialect?.csv_line_ending === 'lf' ? '\n' : '\r\n';
      check(`${where}: records end in ${JSON.stringify(ends)}, not ${JSON.stringify(eol)}`, JSON.stringify(ends) === JSON.stringify([eol]));
      const head = lines[0] ?? [];
      const want = titles.map((k) => csvText(utf8(k)));
      check(`${where}: header ${JSON.stringify(head)} is not ${JSON.stringify(want)}`, JSON.stringify(head) === JSON.stringify(want));
      for (const line of lines.slice(1)) got.push((c) => line[c] ?? '(no field)');
      for (const line of lines.slice(1)) if (line.length !== columns.length) out.push(`${where}: a line of ${line.length} fields, not ${columns.length}`);
    } else if (job.kind === 'jsonl') {
      for (const line of (p as { rows: Tagged[] }).rows) {
        const members = line[0] === 'obj' ? line[1] : [];
        const keys = members.map(([k]) => k);
        if (JSON.stringify(keys) !== JSON.stringify(columns)) out.push(`${where}: a line's keys ${JSON.stringify(keys)} are not ${JSON.stringify(columns)}`);
        got.push((c) => members[c]?.[1] ?? ['str', '(no member)']);
      }
    } else if (job.kind === 'xlsx') {
      const [sheet = []] = (p as { sheets: Tagged[][][] }).sheets;
      const head = (sheet[0] ?? []).map((t) => (t[0] === 'str' ? t[1] : ''));
      const want = titles.map((k) => xlsxText(k));
      check(`${where}: header ${JSON.stringify(head)} is not ${JSON.stringify(want)}`, JSON.stringify(head) === JSON.stringify(want));
      for (const line of sheet.slice(1)) got.push((c) => line[c] ?? ['none']);
    } else {
      const { pyarrow, duckdb } = p as ParquetPart;
      const types = columns.map((k) => parquetType(rows.map((r) => r(k))));
      check(`${where}: pyarrow's fields ${JSON.stringify(pyarrow.types)} are not ${JSON.stringify(columns.map((k, i) => [k, PYARROW_TYPE[types[i]!]]))}`, JSON.stringify(pyarrow.types) === JSON.stringify(columns.map((k, i) => [k, PYARROW_TYPE[types[i]!]])));
      check(`${where}: DuckDB's columns ${JSON.stringify(duckdb.types)} are not ${JSON.stringify(columns.map((k, i) => [k, DUCKDB_TYPE[types[i]!]]))}`, JSON.stringify(duckdb.types) === JSON.stringify(columns.map((k, i) => [k, DUCKDB_TYPE[types[i]!]])));
      pyarrow.rows.forEach((line, i) => got.push((c) => [line[c] ?? ['none'], duckdb.rows[i]?.[c] ?? ['str', '(no row)']] as unknown as Tagged));
    }
  });
  if (got.length !== rows.length) out.push(`${got.length} data rows read, ${rows.length} sent`);
  const types = job.kind === 'parquet' ? columns.map((k) => parquetType(rows.map((r) => r(k)))) : [];
  rows.forEach((row, i) => {
    if (!got[i]) return;
    columns.forEach((k, c) => {
      const v = row(k);
      const cell = got[i]!(c);
      const ok =
        job.kind === 'csv'
          ? cell === csvCell(v)
          : job.kind === 'jsonl'
            ? sameTagged(v, cell as Tagged)
            : job.kind === 'xlsx'
              ? sameXlsx(v, cell as Tagged)
              : (cell as unknown as Tagged[]).every((t) => sameParquet(types[c]!, v, t));
      if (!ok) out.push(`row ${i + 1} column ${JSON.stringify(k)}: sent ${shown(v)}, read ${JSON.stringify(cell)}${job.kind === 'csv' ? ` (want ${JSON.stringify(csvCell(v))})` : ''}`);
    });
  });
  return out;
}
