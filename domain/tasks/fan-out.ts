// One event handed to every listener of a task, a slice at a time. On a busy API process a task's
// listeners are thousands of sockets, each a socket write of some tens of microseconds: in one
// piece a fan-out would hold the event loop for hundreds of milliseconds, and with it the next
// notice (the task's final event among them), the database's answers and every timer.

/** How long a slice runs before the event loop gets its turn. */
export const SLICE_MS = 8;
// The clock is read once per this many listeners: a listener costs microseconds, the clock too.
const CLOCK_EVERY = 32;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Calls `each` for every item in order, yielding to the event loop between slices of SLICE_MS;
 * `stop` is asked before every slice, and true leaves the rest uncalled. Resolves with how many
 * items were called.
 */
export async function fanOut<T>(items: readonly T[], each: (item: T) => void, stop: () => boolean): Promise<number> {
  let i = 0;
  while (i < items.length) {
    if (stop()) break;
    const until = performance.now() + SLICE_MS;
    do each(items[i++]!);
    while (i < items.length && (i % CLOCK_EVERY !== 0 || performance.now() < until));
    if (i < items.length) await nextTurn();
  }
  return i;
}
