// Types of scripts/test-tools.mjs for the tests that import it.
export const systemChromium: string | undefined;
export const bundledChromium: string;
export function ensureTestTools(): void;
