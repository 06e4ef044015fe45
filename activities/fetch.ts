// The source's activities: probeSource here, fetchPages in fetch-pages.ts; both read the task and
// its project afresh at every attempt.
import { Context } from '@temporalio/activity';
import type { Activities } from '../model/activities.js';
import { pageCount } from '../model/plan.js';
import { DomainError } from '../domain/errors.js';
import { maskKeyId, maskKeyOf } from '../domain/projects/mask-key.js';
import { plansHash } from '../model/mask.js';
import { getProject, settingsOf } from '../domain/projects/projects.js';
import { sourceLimits } from '../domain/source/limiter.js';
import { sourceClientOptions } from '../domain/source/client.js';
import { PoliteSource } from '../domain/source/polite.js';
import { keys } from '../domain/staging/keys.js';
import { resolveSplit } from '../domain/formats/split.js';
import { checkProbed, metaFromProbe, type SourceMeta, writeMeta } from '../domain/staging/meta.js';
import { PageEncoder } from '../domain/staging/page-encoder.js';
import { sheetLabel, taskSheets } from '../domain/staging/sheets.js';
import { requireTask } from '../domain/tasks/queries.js';
import { checkTaskSources } from '../domain/tasks/submit.js';
import { recordProbe } from '../domain/tasks/status.js';
import { type ActivityDeps, heartbeat } from './deps.js';
import { atBoundary } from './failure.js';
import { createFetchPages, inSheet } from './fetch-pages.js';

/**
 * The hash key's id in the meta of each sheet whose plan hashes: the lanes hash only with that key
 * (a rotation during the export makes a lane fail with source_changed, and the export start over).
 */
async function pinMaskKey(metas: SourceMeta[], key: () => Promise<string>): Promise<SourceMeta[]> {
  if (!metas.some((m) => plansHash(m.masks))) return metas;
  const id = maskKeyId(await key());
  return metas.map((m) => (plansHash(m.masks) ? { ...m, maskKeyId: id } : m));
}

export function createFetchActivities({ db, storage, config, destinationKeys }: Pick<ActivityDeps, 'db' | 'storage' | 'config' | 'destinationKeys'>): Pick<Activities, 'probeSource' | 'fetchPages'> {
  const source = new PoliteSource({
    client: sourceClientOptions(config),
    databaseUrl: config.DATABASE_URL,
  });
  const encoder = new PageEncoder(config.SOURCE_DECODE_THREADS, config.PARQUET_ENCODE_THREADS);
  // Every attempt (first run, retry, resume, a later chunk) reads the project afresh: a host an
  // admin removed from source_hosts is not asked again, whatever was allowed at submission.
  const load = async (taskId: string) => {
    const task = await requireTask(db, taskId);
    const project = await getProject(db, task.projectId);
    if (!project) throw new DomainError('internal_error', `the task's project ${task.projectId} is gone`);
    checkTaskSources(project, task); // source_host_not_allowed, permanent
    const settings = settingsOf(project);
    return { task, settings, limits: sourceLimits(settings) };
  };

  return atBoundary({
    /**
     * page_size=1: total, template, header, footer (only this first answer's count). A workbook of
     * several sheets probes each sheet's source, in parallel within the politeness limits.
     */
    async probeSource({ taskId }) {
      const ctx = Context.current();
      // Heartbeats flow from the start, like fetchPages's: a source slow to give its first answer (or
      // a wait for a politeness slot) must not look like a dead worker; they also carry cancellation.
      const beat = setInterval(() => heartbeat(ctx), 1000);
      try {
        const { task, settings, limits } = await load(taskId);
        await storage.deletePrefix(keys.staging(taskId));
        const sheets = taskSheets(task);
        const probed = await Promise.allSettled(
          sheets.map((spec) =>
            source
              .get({ sourceUrl: spec.sourceUrl, projectId: task.projectId, limits, page: 0, pageSize: 1, signal: ctx.cancellationSignal })
              .then((first) => metaFromProbe(first, { type: task.type, pageSize: task.pageSize, options: spec.options, masks: settings.mask_columns }, config.MAX_EXPORT_ROWS)),
          ),
        );
        const failed = probed.findIndex((p) => p.status === 'rejected');
        if (failed >= 0) throw inSheet((probed[failed] as PromiseRejectedResult).reason, sheetLabel(sheets, failed));
        const metas = await pinMaskKey(
          probed.map((p) => (p as PromiseFulfilledResult<SourceMeta>).value),
          () => maskKeyOf(db, task.projectId, destinationKeys),
        );
        const total = checkProbed(task.type, metas, resolveSplit(task.type, task.options, settings, config.MAX_PARTS), config.MAX_EXPORT_ROWS);
        for (const [i, meta] of metas.entries()) await writeMeta(storage, taskId, meta, i);
        const pagesTotal = metas.reduce((n, m) => n + pageCount(m.total, task.pageSize), 0);
        await recordProbe(db, taskId, total, pagesTotal);
        const perSheet = metas.map((m) => ({ total: m.total, pagesTotal: pageCount(m.total, task.pageSize) }));
        return { total, pagesTotal, pageSize: task.pageSize, ...(sheets.length > 1 ? { sheets: perSheet } : {}) };
      } finally {
        clearInterval(beat);
      }
    },

    fetchPages: createFetchPages({ db, storage, source, encoder, load, maskKey: (projectId) => maskKeyOf(db, projectId, destinationKeys), parquetStaging: config.PARQUET_STAGING }),
  });
}
