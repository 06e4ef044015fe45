// Whether this process is shutting down: /readyz answers 503 from the moment a SIGTERM or SIGINT
// arrives (app/runtime.ts onShutdown), while the API still answers everything else.
let stopping = false;

export const lifecycle = {
  get stopping(): boolean {
    return stopping;
  },
  beginShutdown(): void {
    stopping = true;
  },
};
