# syntax=docker/dockerfile:1
# The production image: the service compiled by `npm run build`, run by plain node on Node 20 with
# production dependencies only, as the unprivileged `node` user (uid 1000). One image for both roles; the
# command picks one: dist/app/api.js (the default) or dist/app/worker.js (docs/deploy.md).
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the postinstall fetches the Temporal CLI of the embedded start, which the image has no use for.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/build.mjs scripts/build-console.mjs scripts/
COPY console/index.html console/tsconfig.json console/
COPY console/src/ console/src/
COPY model/ model/
COPY platform/ platform/
COPY db/ db/
COPY workflows/ workflows/
COPY domain/ domain/
COPY activities/ activities/
COPY api/ api/
COPY app/ app/
# Compiles to dist/ (esbuild; CI type-checks), copies the migrations, prebuilds the workflow bundle and
# builds the web console into console/dist/.
RUN npm run build

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/prune-runtime-deps.mjs scripts/
COPY patches/ patches/
# The production tree with our patches applied (--ignore-scripts skips the postinstall that would:
# the postgres driver's fix, docs/adr/0036-database-restarts.md), then only this platform's Temporal
# core-bridge binary (the package ships five): ~230 MB, measured in CI by
# scripts/measure-runtime-deps.mjs (docs/adr/0025-runtime-weight.md).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
    && npx --no-install patch-package --error-on-fail \
    && node scripts/prune-runtime-deps.mjs node_modules \
    && npm cache clean --force

FROM ${NODE_IMAGE}
# As npm start runs: MALLOC_ARENA_MAX caps glibc's per-thread malloc arenas at two (~30 MB less
# resident); a 2 MB young generation halves the worker's growth during an export and costs no
# speed (docs/performance.md). As npm run worker runs: a fixed mmap threshold, so freed page and
# piece buffers go back to the system instead of staying in the heap (ADR 0019).
ENV NODE_ENV=production \
    PORT=8080 \
    DATA_DIR=/data \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=131072 \
    NODE_OPTIONS=--max-semi-space-size=2
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/console/dist ./console/dist
COPY package.json ./
# DATA_DIR holds the files a worker renders before uploading them; a volume mounted here starts
# out owned by `node` (uid 1000 in the node images; numeric, so a runtime can tell it is not root).
RUN mkdir -p /data && chown 1000:1000 /data
USER 1000:1000
EXPOSE 8080
# The API's /healthz on PORT, or the worker's on HEALTH_PORT when that is set (app/healthcheck.ts).
HEALTHCHECK --interval=15s --timeout=6s --start-period=60s --retries=3 CMD ["node", "dist/app/healthcheck.js"]
CMD ["node", "dist/app/api.js"]
