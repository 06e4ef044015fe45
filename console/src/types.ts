// The shapes the console reads from the API (docs/api.md#the-task-object); only the fields it shows.
import type { TaskStatus } from '../../model/task.js';

export interface TaskFile {
  name: string;
  bytes: number;
  rows: number;
  url: string;
  expires_at: string;
}

export interface Task {
  task_id: string;
  operator_id: string;
  type: 'csv' | 'excel';
  file_name: string;
  status: TaskStatus;
  stage: string | null;
  progress: { total_rows: number | null; fetched_rows: number; percent: number; eta_seconds: number | null };
  files: TaskFile[];
  error: { code: string; message: string } | null;
  schedule_id: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface Schedule {
  schedule_id: string;
  cron: string | null;
  every: string | null;
  timezone: string;
  paused: boolean;
  note: string | null;
  task: { source_url: string; operator_id: string; type?: string; file_name?: string };
  last_run: { at: string; outcome: string; task_id: string | null } | null;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export interface TaskFilters {
  operator_id: string;
  status: string;
  from: string;
  to: string;
}
