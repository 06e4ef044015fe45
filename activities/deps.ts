import type { Column } from './columns.js';
import type { Db } from '../db/client.js';
import type { Config } from '../lib/config.js';
import type { Storage } from '../lib/storage/index.js';

export interface ActivityDeps {
  db: Db;
  storage: Storage;
  config: Config;
  /** Signs the file links in callback payloads (activities/notify.ts), as the API does. */
  linkSecret: string;
}

/** Where a task's intermediate and final objects live in the store. */
export const keys = {
  staging: (taskId: string) => `staging/${taskId}`,
  meta: (taskId: string) => `staging/${taskId}/meta.json`,
  pages: (taskId: string) => `staging/${taskId}/pages`,
  /** Pages [from, to) of the source, as fetched (activities/pieces.ts). */
  piece: (taskId: string, from: number, to: number, ext: string) => `staging/${taskId}/pages/${String(from).padStart(8, '0')}-${String(to).padStart(8, '0')}.${ext}`,
  output: (taskId: string, name: string) => `staging/${taskId}/out/${name}`,
  files: (taskId: string) => `files/${taskId}`,
  file: (taskId: string, name: string) => `files/${taskId}/${name}`,
};

/** What the probe learned, kept in the store (not in workflow history). */
export interface SourceMeta {
  total: number;
  pageSize: number;
  columns: Column[];
  template?: unknown;
  header?: unknown;
  footer?: unknown;
}
