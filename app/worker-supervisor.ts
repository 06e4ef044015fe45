// Keeps the Temporal worker from taking activities while the database is unreachable
// (docs/adr/0036-database-restarts.md). The SDK cannot suspend polling, so a pause is a shutdown
// (polling stops; in-flight activities finish or fail retryably within the grace time) and a resume
// is a fresh Worker on the same connection, bundle and options. The process never exits in between.
import type { Logger } from 'pino';
import { metrics } from '../platform/metrics.js';

/** What the supervisor needs of a Temporal Worker (a fake one in test/unit/worker-supervisor.test.ts). */
export interface SupervisedWorker {
  run(): Promise<void>;
  shutdown(): void;
  getState(): string;
}

export interface SupervisorOptions {
  /** A new worker whose activities call `report` when they find the database unreachable. */
  create(report: () => void): Promise<SupervisedWorker>;
  /** Resolves when the database answers (`select 1`); rejects or hangs when it does not. */
  probe(): Promise<void>;
  log: Logger;
  /** Between probes while paused; a probe that has not answered by then counts as a failure. */
  probeIntervalMs?: number;
}

const PROBE_INTERVAL_MS = 1000;

export class WorkerSupervisor {
  /** Settles when the supervisor has stopped (stop()), or rejects when a worker failed on its own. */
  running!: Promise<void>;
  private worker!: SupervisedWorker;
  private pausedSince: number | null = null;
  private stopped = false;
  private checking = false;
  private wake: (() => void) | null = null;
  private readonly interval: number;

  private constructor(private readonly opts: SupervisorOptions) {
    this.interval = opts.probeIntervalMs ?? PROBE_INTERVAL_MS;
  }

  static async start(opts: SupervisorOptions): Promise<WorkerSupervisor> {
    const supervisor = new WorkerSupervisor(opts);
    supervisor.worker = await supervisor.create();
    metrics.workerPaused.set(0);
    supervisor.running = supervisor.loop();
    return supervisor;
  }

  private create(): Promise<SupervisedWorker> {
    return this.opts.create(() => this.databaseUnavailable());
  }

  get paused(): boolean {
    return this.pausedSince !== null;
  }

  /** The worker's state, or PAUSED while waiting for the database. */
  get state(): string {
    return this.paused ? 'PAUSED' : this.worker.getState();
  }

  /**
   * An activity found the database unreachable: one probe confirms it (a blink is not an outage),
   * then polling stops. Reports while a check or a pause is under way add nothing.
   */
  databaseUnavailable(): void {
    if (this.stopped || this.paused || this.checking) return;
    this.checking = true;
    void this.answers()
      .then((ok) => {
        if (!ok && !this.stopped && !this.paused) this.pause();
      })
      .finally(() => (this.checking = false));
  }

  /** A real shutdown: polling stops, in-flight activities get the grace time; no resume after it. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    if (this.worker.getState() === 'RUNNING') this.worker.shutdown();
    await this.running.catch(() => {});
  }

  private pause(): void {
    this.pausedSince = Date.now();
    metrics.workerPaused.set(1);
    this.opts.log.warn('[download-center] database unreachable: worker paused (no new activities until it answers)');
    if (this.worker.getState() === 'RUNNING') this.worker.shutdown();
  }

  private async loop(): Promise<void> {
    for (;;) {
      const run = this.worker.run();
      // A stop that came while this worker was being created.
      if (this.stopped && this.worker.getState() === 'RUNNING') this.worker.shutdown();
      // A pause makes run() end normally: tell it apart from a worker that stopped on its own.
      await run.catch((err: Error) => {
        if (!this.paused || this.stopped) throw err;
        this.opts.log.warn({ err }, 'the paused worker ended with an error');
      });
      if (this.stopped || !this.paused) return;
      if (!(await this.waitForDatabase())) return;
      this.worker = await this.create();
      const outageMs = Date.now() - this.pausedSince!;
      this.pausedSince = null;
      metrics.workerPaused.set(0);
      this.opts.log.warn({ outage_ms: outageMs }, `[download-center] database back: worker resumed after ${outageMs} ms`);
    }
  }

  /** Probes every interval until the database answers (true) or the supervisor stops (false). */
  private async waitForDatabase(): Promise<boolean> {
    while (!this.stopped) {
      const started = Date.now();
      if (await this.answers()) return !this.stopped;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, this.interval - (Date.now() - started)));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
    return false;
  }

  private async answers(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), this.interval)));
    try {
      return await Promise.race([
        this.opts.probe().then(
          () => true,
          () => false,
        ),
        late,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
