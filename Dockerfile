# Boundary Lab images. One Dockerfile, four runnable targets:
#
#   docker build --target delayed-write -t boundary-lab/delayed-write .
#   docker build --target replay        -t boundary-lab/replay .
#   docker build --target worker        -t boundary-lab/worker .
#   docker build --target web           -t boundary-lab/web .
#
# (docker-compose.yml builds all of them, plus the `build` stage as a one-shot migrator.)
#
# Stage order matters: `next build` runs only in `web-build`, which comes after the
# delayed-write, replay and worker targets. BuildKit builds only the stages a target needs, and the
# classic builder (docker-compose 1.29 without BuildKit) stops at the requested target, so
# building delayed-write, replay or worker never runs `next build`.
#
# Only Dockerfile syntax that the classic builder also understands is used here
# (no RUN --mount, no COPY --chmod/--link).

ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS base
# The lockfile and package.json "allowScripts" are written for npm 11 (docs/stack.md). The
# node:20 images ship npm 10, which ignores allowScripts and would run every install script
# (including Prisma's engine download), so pin the npm the project uses.
ARG NPM_VERSION=11.19.1
ENV NEXT_TELEMETRY_DISABLED=1 \
    PRISMA_HIDE_UPDATE_MESSAGE=1 \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false
RUN npm install -g "npm@${NPM_VERSION}" \
 && npm cache clean --force \
 && mkdir -p /app /out \
 && chown node:node /app /out
WORKDIR /app
USER node

# ---------------------------------------------------------------------------------------------
FROM base AS deps
# Full install (dev dependencies included): the Prisma CLI (devDependency) is needed at runtime
# because the product runs `prisma migrate status/deploy` itself (lib/db/migrate.ts), and
# `next build` needs typescript.
COPY --chown=node:node package.json package-lock.json ./
RUN npm ci \
 && npm cache clean --force

# ---------------------------------------------------------------------------------------------
FROM deps AS build
COPY --chown=node:node . .
# Prisma 6.19 on the JS engine: generate needs no engine download. The datasource still reads
# env("DATABASE_URL"), so give it a placeholder; nothing connects to it.
RUN DATABASE_URL="postgresql://build:build@localhost:5432/build" npx prisma generate
# Used by the compose `migrate` service (it also sets this command itself).
CMD ["npx", "prisma", "migrate", "deploy"]

# ---------------------------------------------------------------------------------------------
FROM build AS delayed-write
ENV HOST=0.0.0.0 \
    PORT=4100
EXPOSE 4100
# Slim images have no curl: probe with Node's built-in fetch.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4100) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1 and the service handles SIGTERM/SIGINT itself (workers/delayed-write.ts).
CMD ["node", "--import", "tsx", "workers/delayed-write.ts"]

# ---------------------------------------------------------------------------------------------
FROM build AS replay
# Arguments after the image/service name are passed to the replay CLI:
#   docker compose run --rm replay --json /out/out.json
# (--silent keeps npm's "> boundary-lab replay" banner off stdout, where Table 2 is printed.)
# Without DATABASE_URL the replay starts an embedded PostgreSQL under BOUNDARY_LAB_DATA_DIR;
# without DELAYED_WRITE_URL it spawns its own delayed-write service.
ENV BOUNDARY_LAB_DATA_DIR=/app/.data
ENTRYPOINT ["npm", "run", "--silent", "replay", "--"]
CMD []

# ---------------------------------------------------------------------------------------------
FROM build AS worker
# One replay worker (workers/replay-worker.ts): claims replay jobs from the PostgreSQL queue at
# DATABASE_URL and runs them against DELAYED_WRITE_URL; run as many as you like
# (`docker compose up --scale worker=3`). WORKER_CONCURRENCY units at a time (default 64).
# /healthz (liveness) and /readyz (readiness) are served on 127.0.0.1:HEALTH_PORT, inside the
# container only. On SIGTERM it finishes its jobs in flight for up to SHUTDOWN_TIMEOUT_MS (30 s).
ENV HEALTH_PORT=4200
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.HEALTH_PORT || 4200) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1 and the worker handles SIGTERM/SIGINT itself.
CMD ["node", "--import", "tsx", "workers/replay-worker.ts"]

# ---------------------------------------------------------------------------------------------
FROM build AS web-build
# Needs app/ (or pages/) with at least one route. Pages that read the database must render
# dynamically: no DATABASE_URL is set here (lib/db/web-process-db.ts creates its client on first use).
RUN npx next build \
 && rm -rf .next/cache

# ---------------------------------------------------------------------------------------------
FROM web-build AS web
ENV NODE_ENV=production \
    PORT=3000
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# workers/web.ts: Next's production server behind the client-address rule; PORT and WEB_HOST
# (0.0.0.0) from the environment. Behind a reverse proxy, set TRUSTED_PROXIES to its address.
CMD ["node", "--max-semi-space-size=128", "--import", "tsx", "workers/web.ts"]
