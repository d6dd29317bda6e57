#!/usr/bin/env bash
# Brings a checkout to a runnable state: dependencies from the lockfile and the generated Prisma client.
# Cheap when nothing changed, so `npm start` and `npm test` both call it first.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing dependencies (npm ci)"
  npm ci --no-audit --no-fund
fi

if [ ! -f lib/generated/prisma/client.ts ] || [ prisma/schema.prisma -nt lib/generated/prisma/client.ts ]; then
  echo "setup: generating the Prisma client"
  # generate reads the schema only; the URL is required by the config but never dialled
  DATABASE_URL="${DATABASE_URL:-postgresql://unused@127.0.0.1/unused}" npx prisma generate >/dev/null
fi

# The MCP recorder's entry point, one bundled file (`npm run mcp:record`, `npx boundary-lab-mcp-record`).
node scripts/build-recorder.mjs --if-stale
