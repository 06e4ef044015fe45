// `node dist/app/healthcheck.js`: the container HEALTHCHECK (no curl in the slim image). Exits 0
// when this container's /healthz answers 200: the worker's on HEALTH_PORT when set, else the API's
// on PORT.
import { loadConfig } from '../platform/config.js';

const config = loadConfig();
const port = config.HEALTH_PORT ?? config.PORT;
try {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(4000) });
  const body = await res.text();
  if (res.status !== 200) {
    console.error(`healthz on ${port}: ${res.status} ${body}`);
    process.exit(1);
  }
} catch (err) {
  console.error(`healthz on ${port}: ${(err as Error).message}`);
  process.exit(1);
}
