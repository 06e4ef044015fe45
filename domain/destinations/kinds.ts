// A destination row is an S3 bucket or an SFTP directory (db/schema.ts keeps both in one table):
// the narrowed types each kind's code works with.
import type { DestinationRow, SftpTarget } from '../../db/schema.js';
import { DomainError } from '../errors.js';

export type S3Row = DestinationRow & { kind: 's3'; endpoint: string; region: string; bucket: string; accessKeyId: string; pathStyle: boolean };
export type SftpRow = DestinationRow & { kind: 'sftp'; sftp: SftpTarget };

export function isS3(row: DestinationRow): row is S3Row {
  return row.kind === 's3' && row.endpoint !== null && row.region !== null && row.bucket !== null && row.accessKeyId !== null && row.pathStyle !== null;
}

export function isSftp(row: DestinationRow): row is SftpRow {
  return row.kind === 'sftp' && row.sftp !== null;
}

/** A row whose columns do not fit its kind was written by hand: not the customer's fault, and no retry mends it. */
export function malformed(row: DestinationRow): DomainError {
  return new DomainError('internal_error', `destination ${row.id} (${row.kind}) lacks the settings of its kind`);
}
