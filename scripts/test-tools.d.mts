// Types of scripts/test-tools.mjs for the tests that import it.
export const systemChromium: string | undefined;
export const bundledChromium: string;
/** OpenSSH's server, Debian's openssh-server (the SFTP tests start their own). */
export const SSHD: string;
export function ensureTestTools(): void;
/** The inner loop's share: the Python readers only. */
export function ensureReaderTools(): void;
/** What `npm run bench:xlsx` needs: rust_xlsxwriter (the anchor) and openpyxl. */
export function ensureBenchTools(): void;
