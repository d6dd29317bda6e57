#!/usr/bin/env bash
# `npm start`: the whole product on this machine in one command.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export NEXT_TELEMETRY_DISABLED=1

# Build the web app when there is no build or the sources changed since the last one.
if [ ! -f .next/BUILD_ID ] || [ -n "$(find app components lib next.config.ts package-lock.json -newer .next/BUILD_ID -type f 2>/dev/null | grep -v '^lib/generated/' | head -1)" ]; then
  echo "start: building the web app"
  npx next build
fi
exec node --import tsx workers/start.ts
