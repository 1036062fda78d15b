#!/usr/bin/env bash
# Installs mermaid's own parser (pinned in package.json and package-lock.json)
# for internal/mermaid's oracle test, which skips while node_modules is
# missing. Idempotent: skips the install when node_modules was built from
# the current package-lock.json. node_modules links to a cache of installs
# keyed by the lock (testdata/e2e/node-cache.sh).
set -euo pipefail
cd "$(dirname "$0")"
. ../../../../testdata/e2e/node-cache.sh

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "mermaid oracle: node and npm are required (Node 18 or newer)" >&2
  exit 1
fi

stamp=node_modules/.the-loop-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -d node_modules/mermaid ]; then
  echo "mermaid oracle: node_modules matches package-lock.json"
  exit 0
fi

has_mermaid() { [ -d node_modules/mermaid ]; }
node_modules_install mermaid-oracle has_mermaid ci --no-audit --no-fund --loglevel=error
