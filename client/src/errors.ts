// Every refusal of the API has the same envelope (GET /openapi.json, components.schemas.Error);
// the client throws it as one error class, with the HTTP status beside it.
import type { components } from './schema.js';

export type ErrorBody = components['schemas']['Error']['error'];

export class DownloadCenterError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | null;
  readonly details: ErrorBody['details'];
  /** quota_exceeded: the project quota reached, its limit, the use and when it resets. */
  readonly quota: ErrorBody['quota'];
  /** Seconds to wait before trying again (429, 503), when the API said so. */
  readonly retryAfter: number | undefined;

  constructor(status: number, body: Partial<ErrorBody> | undefined, retryAfter?: string | null) {
    super(body?.message ?? `HTTP ${status}`);
    this.name = 'DownloadCenterError';
    this.status = status;
    this.code = body?.code ?? `http_${status}`;
    this.requestId = body?.request_id ?? null;
    this.details = body?.details;
    this.quota = body?.quota;
    this.retryAfter = retryAfter ? Number(retryAfter) : undefined;
  }

  /** From an answer that is not 2xx, whatever its body. */
  static async from(res: Response, parsed?: unknown): Promise<DownloadCenterError> {
    let body = parsed as { error?: Partial<ErrorBody> } | undefined;
    if (body === undefined) body = (await res.json().catch(() => undefined)) as typeof body;
    return new DownloadCenterError(res.status, body?.error, res.headers.get('retry-after'));
  }
}
