import type { MailCatcher } from '../platform/mail-catcher.js';
import type { Client } from '@temporalio/client';
import type { Database } from '../db/client.js';
import type { ProjectRow, TaskRow } from '../db/schema.js';
import type { LinkSigner } from '../domain/tasks/view.js';
import type { PoliteSource } from '../domain/source/polite.js';
import type { Admission, AfterAnswer } from '../domain/tasks/admission/index.js';
import type { TaskEvents } from '../domain/tasks/events.js';
import type { Config } from '../platform/config.js';
import type { Secrets } from '../platform/secrets.js';
import type { Storage } from '../platform/storage/index.js';

export interface ApiDeps {
  database: Database;
  storage: Storage;
  config: Config;
  secrets: Secrets;
  temporal: Client;
  /**
   * A client over the NativeConnection of a worker in this process polling both queues (the tests'
   * one-process environment): runs of submissions (sync and ordinary) start eagerly on it
   * (docs/adr/0017-lean-sync-exports.md, ADR 0020). Absent otherwise.
   */
  eagerTemporal?: Client | undefined;
  /**
   * This process's sync Worker, started if it is not polling yet (app/sync-worker.ts), and a client
   * on its connection: before a sync run starts, which then starts eagerly on it.
   */
  wakeSyncWorker?: (() => Promise<Client>) | undefined;
  /** The embedded start's local SMTP catcher (no SMTP_URL): what GET /v1/admin/mails reads. */
  mailbox?: MailCatcher | undefined;
}

/** What every route may use: the dependencies plus what the app builds once from them. */
export interface ApiContext extends ApiDeps {
  hub: TaskEvents;
  /** Accepts submissions and starts runs (domain/tasks/admission/service.ts). */
  admission: Admission;
  /** The API's origin: the runs of accepted submissions start after the answer (domain/tasks/admission/starter.ts). */
  starter: AfterAnswer;
  signer: LinkSigner;
  /** Source requests of previews, under the same politeness limits as the exports'. */
  source: PoliteSource;
}

export type Principal =
  | { kind: 'admin' }
  | { kind: 'project'; project: ProjectRow }
  /** An operator session's token: one operator's tasks of the project (middleware/operator.ts). */
  /** taskId: an e-mail's link, which opens that one task only. */
  | { kind: 'operator'; project: ProjectRow; operatorId: string; permissions: string[]; sessionId: string; taskId: string | null };

export type AppEnv = {
  Variables: {
    requestId: string;
    principal: Principal;
    /** Whether the credential this request authenticated with still opens it (sockets re-ask). */
    recheck: () => Promise<boolean>;
    project: ProjectRow;
    task: TaskRow;
    /** Set by a submission handler: what dc_task_submissions_total counts it as (middleware/submissions.ts). */
    submitted: 'accepted' | 'deduplicated';
  };
};
