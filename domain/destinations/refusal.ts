// Whether a destination's host may be used now: checked at creation, at submission of a task that
// names it, and at every test and delivery attempt (the project's list as it is then decides).
import type { DestinationRow } from '../../db/schema.js';
import { checkOutgoingUrl } from '../source/hosts.js';
import { endpointRefusal } from './connect.js';
import { isS3, isSftp, malformed } from './kinds.js';

/** `host:port` as a URL's authority, so the URL parser gives its canonical form (IPv6 in brackets). */
export const authority = (host: string, port: number): string => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/** Why an SFTP server's host may not be used, or null: the same literal and allow-list checks as an S3 endpoint's. */
export function sftpHostRefusal(host: string, port: number, hosts: readonly string[]): string | null {
  const check = checkOutgoingUrl(`http://${authority(host, port)}/`, hosts);
  if (check.ok) return null;
  if (check.reason === 'invalid') return 'host must be a host name or an IP address';
  if (check.reason === 'blocked') return 'host points at a link-local or cloud metadata address';
  return "the host is not on the project's destination_hosts";
}

/** Why a destination may not be used now, as submission's 422 and a delivery's failure say it. */
export function destinationRefusal(row: DestinationRow, hosts: readonly string[]): string | null {
  if (isSftp(row)) return sftpHostRefusal(row.sftp.host, row.sftp.port, hosts);
  if (isS3(row)) return endpointRefusal(row.endpoint, hosts);
  throw malformed(row);
}
