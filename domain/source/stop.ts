// Stopping source requests when their caller is cancelled, after a grace the caller picks.

/**
 * A signal that follows `cancel` after `graceMs()` (asked when the cancel comes; 0 on error): the
 * request in flight may finish meanwhile. dispose() clears it when the caller ends.
 */
export function stopAfterGrace(cancel: AbortSignal, graceMs: () => Promise<number>): { signal: AbortSignal; dispose(): void } {
  const stop = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const onCancel = () => {
    void graceMs()
      .catch(() => 0)
      .then((ms) => {
        if (!stop.signal.aborted) timer = setTimeout(() => stop.abort(cancel.reason), ms);
      });
  };
  if (cancel.aborted) stop.abort(cancel.reason);
  else cancel.addEventListener('abort', onCancel, { once: true });
  return {
    signal: stop.signal,
    dispose() {
      cancel.removeEventListener('abort', onCancel);
      clearTimeout(timer);
      stop.abort();
    },
  };
}
