// The record of downloads (docs/downloads.md): what GET /v1/downloads and GET /v1/tasks/:id/downloads
// take and answer.
import { z } from '@hono/zod-openapi';

const time = z.iso.datetime({ offset: true });

export const DOWNLOADS_PAGE_MAX = 100;

export const downloadPageSchema = z.object({
  limit: z.coerce.number().int().min(1).max(DOWNLOADS_PAGE_MAX).default(20),
  cursor: z.string().max(200).optional().openapi({ description: 'next_cursor of the page before.' }),
});

export const downloadListSchema = downloadPageSchema.extend({
  since: time
    .transform((s) => new Date(s))
    .optional()
    .openapi({ description: 'Only downloads that ended at or after this time (ISO 8601).', example: '2026-11-27T00:00:00Z' }),
});

export const downloadCountSchema = downloadListSchema.pick({ since: true });

export const downloadSchema = z
  .object({
    download_id: z.string(),
    task_id: z.string(),
    file: z.string().openapi({ description: 'files[].name of the file downloaded.' }),
    at: time.openapi({ description: 'When the response ended (the whole file sent, or the client gone).' }),
    started_at: time,
    by: z
      .object({
        kind: z.enum(['project', 'operator', 'link']).openapi({
          description: "project: the project's API key; operator: an operator session (the operator's center, an e-mail's link); link: a signed files[].url given to the project.",
        }),
        id: z.string().nullable().openapi({ description: "The project's id, or the operator's id; null for a link." }),
        session_id: z.string().optional().openapi({ description: 'The operator session (ops_…); an e-mail\'s link is a session of one task.' }),
      })
      .openapi('DownloadBy'),
    via: z.enum(['api', 'link', 'sync']).openapi({ description: 'api: GET /v1/tasks/:id/download; link: a signed link; sync: the answer of POST /v1/tasks/sync.' }),
    ip: z.string().openapi({ description: "The client's address: the connection's peer, or X-Forwarded-For behind a trusted proxy (TRUSTED_PROXIES)." }),
    user_agent: z.string().openapi({ description: 'As sent, at most 512 characters.' }),
    range: z.string().nullable().openapi({ description: "A Range answer's part, as its Content-Range (bytes 1024-4095/4096); null: the whole file was asked." }),
    bytes: z.number().int().openapi({ description: 'Bytes handed to the connection.' }),
    complete: z.boolean().openapi({ description: 'The whole file was sent in this answer, or this answer was the part with which the same downloader (the project key, the operator session, or the signed link) came to hold every byte of the file (a resumed download).' }),
  })
  .openapi('Download');

export const taskDownloads = z
  .object({ items: z.array(downloadSchema), next_cursor: z.string().nullable() })
  .openapi('TaskDownloads');

export const downloadPage = z
  .object({ items: z.array(downloadSchema), next_cursor: z.string().nullable().openapi({ description: 'Pass back as cursor for the next page; null at the end.' }) })
  .openapi('DownloadPage');

export const downloadCount = z
  .object({
    count: z.number().int(),
    more: z.boolean().openapi({ description: 'There are more than count (counting stops at 10,000).' }),
  })
  .openapi('DownloadCount');
