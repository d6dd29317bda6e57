#!/usr/bin/env bash
# Static checks of the Docker files; no Docker engine needed (there is none on CI).
#  1. docker-compose.yml validates with Debian's docker-compose 1.29 (`config -q`), which is
#     installed with apt-get when the command is missing.
#  2. docker-compose.yml has no top-level `version:` or `name:` key (Compose-spec form).
#  3. The Dockerfile defines the targets delayed-write, replay, worker and web (`FROM ... AS <name>`).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

fail() {
  echo "check-compose: FAIL: $*" >&2
  exit 1
}

if ! command -v docker-compose >/dev/null 2>&1; then
  echo "check-compose: docker-compose not found, installing Debian's package"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || fail "docker-compose is missing and installing it needs root (or sudo)"
    sudo_cmd=(sudo)
  fi
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker-compose
fi

[ -f docker-compose.yml ] || fail "docker-compose.yml not found in $(pwd)"
[ -f Dockerfile ] || fail "Dockerfile not found in $(pwd)"

echo "check-compose: $(docker-compose version --short 2>/dev/null || echo unknown) config -q"
if ! docker-compose -f docker-compose.yml config -q; then
  fail "docker-compose -f docker-compose.yml config -q rejected docker-compose.yml"
fi

if grep -Eq '^(version|name):' docker-compose.yml; then
  fail "docker-compose.yml has a top-level 'version:' or 'name:' key; remove it (Compose-spec form)"
fi

missing=()
for target in delayed-write replay worker web; do
  if ! grep -Eiq "^[[:space:]]*FROM[[:space:]]+.+[[:space:]]+AS[[:space:]]+${target}[[:space:]]*$" Dockerfile; then
    missing+=("$target")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  fail "Dockerfile does not define the build target(s): ${missing[*]} (expected lines like 'FROM <stage> AS <target>')"
fi

echo "check-compose: OK (docker-compose.yml valid; Dockerfile defines delayed-write, replay, worker, web)"
