// The minimum transfer rate of a source body (SOURCE_MIN_BYTES_PER_SECOND over SOURCE_RATE_WINDOW_MS).

/**
 * Aborts a body that delivers fewer than minBytesPerSecond over a whole window; `count` is told
 * each chunk. A trickle of a few bytes a second keeps the idle timeout quiet, but not this.
 */
export function rateGuard(opts: { minBytesPerSecond?: number | undefined; rateWindowMs?: number | undefined }) {
  const stalled = new AbortController();
  const min = opts.minBytesPerSecond ?? 0;
  const windowMs = opts.rateWindowMs ?? 10_000;
  let inWindow = 0;
  let timer: NodeJS.Timeout | undefined;
  return {
    signal: stalled.signal,
    start() {
      if (min > 0) timer = setInterval(() => (inWindow < (min * windowMs) / 1000 ? stalled.abort() : (inWindow = 0)), windowMs);
    },
    count(bytes: number) {
      inWindow += bytes;
    },
    stop: () => clearInterval(timer),
    message: (where: string) => `source sent ${where} slower than ${min} bytes/s over ${windowMs} ms (SOURCE_MIN_BYTES_PER_SECOND)`,
  };
}
