#!/usr/bin/env bash
# `npm test`: every test layer on a fresh machine of this kind. Installs what it needs first.
#   type check -> format check -> unit, HTTP and database tests (vitest) -> web build -> browser tests (Playwright, Debian's Chromium)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export NEXT_TELEMETRY_DISABLED=1

# Debian's Chromium for the browser tests; Debian's Python with venv (and the pip it bundles) for the
# Python client's offline install (e2e/python-client.spec.ts).
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
/usr/bin/python3 -c "import venv, ensurepip" 2>/dev/null || missing+=(python3 python3-venv)
if [ ${#missing[@]} -gt 0 ]; then
  echo "test: installing Debian packages: ${missing[*]}"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

mkdir -p test-results
echo "test: type check"
npx tsc --noEmit -p .

echo "test: format check (Prettier, 140 columns)"
npm run -s format:check

echo "test: unit, HTTP and database tests"
vitest_status=0
npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json || vitest_status=$?

e2e_status=0
if [ -f playwright.config.ts ]; then
  echo "test: building the web app"
  npx next build
  echo "test: browser tests in Chromium"
  PLAYWRIGHT_JSON_OUTPUT_NAME=test-results/playwright.json npx playwright test --reporter=list,json || e2e_status=$?
fi

node scripts/test-summary.mjs test-results/vitest.json test-results/playwright.json
[ "$vitest_status" = 0 ] && [ "$e2e_status" = 0 ]
