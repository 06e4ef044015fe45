// The custom search attributes every export workflow carries (docs/operations.md#finding-exports-in-the-temporal-ui), so operators find
// exports in the Temporal UI by project, operator, type, status and size. Pure: the workflow
// upserts them, domain/tasks/admission/run.ts sets them at start, platform/ registers them.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const DC_PROJECT_ID = defineSearchAttributeKey('DcProjectId', SearchAttributeType.KEYWORD);
export const DC_OPERATOR_ID = defineSearchAttributeKey('DcOperatorId', SearchAttributeType.KEYWORD);
export const DC_EXPORT_TYPE = defineSearchAttributeKey('DcExportType', SearchAttributeType.KEYWORD);
export const DC_STATUS = defineSearchAttributeKey('DcStatus', SearchAttributeType.KEYWORD);
export const DC_ROWS = defineSearchAttributeKey('DcRows', SearchAttributeType.INT);

/** What DcStatus holds: the task's status as the run sees it (`expired` is never a run's). */
export const DC_STATUSES = ['queued', 'running', 'paused', 'succeeded', 'failed', 'cancelled'] as const;
export type DcStatus = (typeof DC_STATUSES)[number];

/**
 * Name and type as `temporal server start-dev --search-attribute NAME=TYPE` and
 * `temporal operator search-attribute create --name NAME --type TYPE` spell them.
 */
export const SEARCH_ATTRIBUTES: ReadonlyArray<{ name: string; type: 'Keyword' | 'Int' }> = [
  { name: DC_PROJECT_ID.name, type: 'Keyword' },
  { name: DC_OPERATOR_ID.name, type: 'Keyword' },
  { name: DC_EXPORT_TYPE.name, type: 'Keyword' },
  { name: DC_STATUS.name, type: 'Keyword' },
  { name: DC_ROWS.name, type: 'Int' },
];
