// Prometheus metrics (prom-client) of this process, and the Temporal SDK's worker metrics, which
// the SDK's Core serves on a loopback port of its own (app/runtime.ts) and /metrics appends, so
// each process has one scrape endpoint. Every series is described in docs/operations.md.
// Project ids label counters only: a histogram per project would multiply its buckets by them.
import { AggregatorRegistry, Counter, collectDefaultMetrics, Gauge, Histogram, type MetricObjectWithValues, type MetricValue, Registry } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const registers = [registry];
const seconds = (...b: number[]) => b;

export const metrics = {
  httpRequests: new Histogram({
    name: 'dc_http_request_duration_seconds',
    help: 'API requests by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: seconds(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
    registers,
  }),
  submissions: new Counter({
    name: 'dc_task_submissions_total',
    help: 'POST /v1/tasks and /v1/tasks/sync by outcome: accepted, deduplicated, rate_limited, rejected (with the error code)',
    labelNames: ['project_id', 'outcome', 'code'] as const,
    registers,
  }),
  runStarts: new Counter({
    name: 'dc_run_starts_total',
    help: 'Export runs started for admitted tasks, by how: eager (the first workflow task handed to this process\'s worker with the start) or task_queue',
    labelNames: ['how'] as const,
    registers,
  }),
  // Per destination (a project's handful): deliveries by outcome, and the bytes written there.
  destinationDeliveries: new Counter({
    name: 'dc_destination_deliveries_total',
    help: 'Delivery attempts into a destination by outcome: delivered, retry (a transient failure), failed (for good), with the task error code',
    labelNames: ['project_id', 'destination_id', 'outcome', 'code'] as const,
    registers,
  }),
  destinationBytes: new Counter({
    name: 'dc_destination_bytes_total',
    help: 'Bytes of files delivered into a destination',
    labelNames: ['project_id', 'destination_id'] as const,
    registers,
  }),
  deliveryDuration: new Histogram({
    name: 'dc_delivery_duration_seconds',
    help: "Delivery attempts' duration (every file and the manifest), by outcome",
    labelNames: ['outcome'] as const,
    buckets: seconds(0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600),
    registers,
  }),
  exportsFinished: new Counter({
    name: 'dc_exports_finished_total',
    help: 'Export runs that ended, by status (succeeded, failed, cancelled, paused)',
    labelNames: ['project_id', 'type', 'status'] as const,
    registers,
  }),
  exportDuration: new Histogram({
    name: 'dc_export_duration_seconds',
    help: "An export run from its start (slot taken) to its end, by type and status",
    labelNames: ['type', 'status'] as const,
    buckets: seconds(0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200),
    registers,
  }),
  stageDuration: new Histogram({
    name: 'dc_stage_duration_seconds',
    help: 'Time an export run spent in each stage (probing, fetching, rendering, uploading), measured by the workflow',
    labelNames: ['type', 'stage'] as const,
    buckets: seconds(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600),
    registers,
  }),
  rowsExported: new Counter({ name: 'dc_rows_exported_total', help: 'Rows in the files of succeeded exports', labelNames: ['project_id', 'type'] as const, registers }),
  bytesExported: new Counter({
    name: 'dc_bytes_exported_total',
    help: 'Bytes of the published files of succeeded exports (parts and zip)',
    labelNames: ['project_id', 'type'] as const,
    registers,
  }),
  sourceRequests: new Histogram({
    name: 'dc_source_request_duration_seconds',
    help: "Requests to the projects' sources (probe and pages), by outcome: ok, error, cancelled",
    labelNames: ['outcome'] as const,
    buckets: seconds(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120),
    registers,
  }),
  sourceErrors: new Counter({
    name: 'dc_source_request_errors_total',
    help: 'Failed source requests by kind: http_5xx, http_429, http_408, http_4xx, timeout, deadline, network, blocked, too_large, bad_json, bad_shape',
    labelNames: ['project_id', 'kind'] as const,
    registers,
  }),
  callbackDeliveries: new Counter({
    name: 'dc_callback_deliveries_total',
    help: 'Callback delivery attempts by result: delivered, retry, rejected, gave_up, host_not_allowed',
    labelNames: ['project_id', 'result'] as const,
    registers,
  }),
  workerPaused: new Gauge({ name: 'dc_worker_paused', help: 'Whether this worker has stopped polling because the database is unreachable (1) or polls (0)', registers }),
  wsConnections: new Gauge({ name: 'dc_ws_connections', help: 'Open WebSocket connections on /v1/ws', registers }),
  wsEvents: new Counter({ name: 'dc_ws_events_sent_total', help: 'Task events sent to WebSocket subscribers, by event', labelNames: ['event'] as const, registers }),
  taskEventFanout: new Histogram({
    name: 'dc_task_event_fanout_seconds',
    help: 'From reading a changed task to handing its event to the last of its listeners (WebSockets, sync exports) on this process; fan-outs cut short by a newer event are not counted',
    labelNames: ['event'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers,
  }),
};

type TaskCounts = () => Promise<{ byStatus: Record<string, number>; queuedByProject: Record<string, number> }>;
let taskCounts: TaskCounts | undefined;
// One count for both gauges of one scrape (metricsText clears it first).
let countsOfScrape: ReturnType<TaskCounts> | undefined;

/** Counted from the database when scraped (the same on every API process: aggregate with max, not sum). */
const counts = () => (taskCounts ? (countsOfScrape ??= taskCounts()) : undefined);

new Gauge({
  name: 'dc_tasks',
  help: 'Tasks by status, all projects (from the database)',
  labelNames: ['status'] as const,
  registers,
  async collect() {
    const c = await counts();
    if (!c) return;
    this.reset();
    for (const [status, n] of Object.entries(c.byStatus)) this.set({ status }, n);
  },
});

new Gauge({
  name: 'dc_tasks_queued',
  help: 'Queued tasks per project (from the database)',
  labelNames: ['project_id'] as const,
  registers,
  async collect() {
    const c = await counts();
    if (!c) return;
    this.reset();
    for (const [project_id, n] of Object.entries(c.queuedByProject)) this.set({ project_id }, n);
  },
});

/** The API process counts tasks for dc_tasks and dc_tasks_queued with this. */
export function countTasksWith(fn: TaskCounts): void {
  taskCounts = fn;
}

type UsageFigures = () => Promise<{ stored: Record<string, number>; rowsToday: Record<string, number>; bytesToday: Record<string, number> }>;
let usageFigures: UsageFigures | undefined;
let usageOfScrape: ReturnType<UsageFigures> | undefined;
const usage = () => (usageFigures ? (usageOfScrape ??= usageFigures()) : undefined);

/**
 * Per-project usage gauges (docs/usage.md#metrics), read from the kept usage when scraped. One
 * series per project that has files stored or use today, never per task or day: the labels are
 * bounded by the number of projects, as dc_tasks_queued's are.
 */
function usageGauge(series: { name: string; help: string }, pick: (u: Awaited<ReturnType<UsageFigures>>) => Record<string, number>): void {
  new Gauge({
    ...series,
    labelNames: ['project_id'] as const,
    registers,
    async collect() {
      const u = await usage();
      if (!u) return;
      this.reset();
      for (const [project_id, n] of Object.entries(pick(u))) this.set({ project_id }, n);
    },
  });
}

usageGauge({ name: 'dc_usage_stored_bytes', help: "Bytes of each project's live files (from the database)" }, (u) => u.stored);
usageGauge({ name: 'dc_usage_rows_today', help: 'Rows of the files each project produced today, UTC (from the database)' }, (u) => u.rowsToday);
usageGauge({ name: 'dc_usage_bytes_today', help: 'Bytes of the files each project produced today, UTC (from the database)' }, (u) => u.bytesToday);

/** The API process reads the usage gauges with this. */
export function readUsageWith(fn: UsageFigures): void {
  usageFigures = fn;
}

let temporalMetricsUrl: string | undefined;

/** Where the Temporal SDK's Prometheus exporter listens in this process (set when the Runtime is installed). */
export function setTemporalMetricsUrl(url: string): void {
  temporalMetricsUrl = url;
}

/** A process's series as data, and its Temporal SDK's exposition as text. */
export interface MetricsParts {
  json: MetricObjectWithValues<MetricValue<string>>[];
  temporal: string;
}

let joined: (() => Promise<MetricsParts | undefined>) | undefined;

/**
 * The embedded start's API process shows its worker process's series beside its own (app/start.ts):
 * one exposition for the service, the worker's series labelled `process="worker"`. Not summed: a sum
 * would drop or average some default series (prom-client's cluster rules), and every counter would
 * seem to reset whenever the worker process did not answer a scrape.
 */
export function joinMetricsOf(fn: () => Promise<MetricsParts | undefined>): void {
  joined = fn;
}

async function temporalText(): Promise<string> {
  if (!temporalMetricsUrl) return '';
  try {
    const res = await fetch(temporalMetricsUrl, { signal: AbortSignal.timeout(2000) });
    return await res.text();
  } catch (err) {
    return `# Temporal SDK metrics unavailable: ${(err as Error).message}\n`;
  }
}

/** One exposition of this process's series and the worker process's, labelled apart (never summed). */
async function besideWorker(worker: MetricsParts['json']): Promise<string> {
  const labelled = worker.map((m) => ({ ...m, aggregator: 'sum' as const, values: m.values.map((v) => ({ ...v, labels: { ...v.labels, process: 'worker' } })) }));
  // Each series keeps its own label set, so the "sum" of the aggregator only puts both families in one.
  const ours = (await registry.getMetricsAsJSON()).map((m) => ({ ...m, aggregator: 'sum' as const }));
  return AggregatorRegistry.aggregate([ours, labelled]).metrics();
}

/** What an embedded worker process hands its API process for /metrics. */
export async function metricsParts(): Promise<MetricsParts> {
  return { json: await registry.getMetricsAsJSON(), temporal: await temporalText() };
}

/** The whole exposition of this process (and of the worker process it joined): ours, then the Temporal SDK's. */
export async function metricsText(): Promise<string> {
  countsOfScrape = undefined;
  usageOfScrape = undefined;
  const other = joined ? await joined().catch(() => undefined) : undefined;
  const ours = other ? await besideWorker(other.json) : await registry.metrics();
  const temporal = other ? other.temporal : await temporalText();
  return temporal ? `${ours}\n${temporal}` : ours;
}

export const metricsContentType = registry.contentType;
