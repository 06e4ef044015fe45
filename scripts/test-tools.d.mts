// Types of scripts/test-tools.mjs for the tests that import it.
export const systemChromium: string | undefined;
export const bundledChromium: string;
export function ensureTestTools(): void;
/** The inner loop's share: the Python readers only. */
export function ensureReaderTools(): void;
