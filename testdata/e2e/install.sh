#!/usr/bin/env bash
# Install the end-to-end harness's Node dependencies (the official MCP
# TypeScript SDK, pinned in package.json and package-lock.json).
# Idempotent: skips the install when node_modules was built from the
# current package-lock.json. .ci/run calls it before `go test ./...`;
# mcp/e2e_test.go skips the Node tests when it has not run. node_modules
# links to a cache of installs keyed by the lock (node-cache.sh).
set -euo pipefail
cd "$(dirname "$0")"
. ./node-cache.sh

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "testdata/e2e/install.sh: node and npm are required (Node 18 or newer)" >&2
  exit 1
fi

stamp=node_modules/.the-loop-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -d node_modules/@modelcontextprotocol/sdk ]; then
  echo "testdata/e2e/install.sh: node_modules matches package-lock.json"
  exit 0
fi

has_sdk() { [ -d node_modules/@modelcontextprotocol/sdk ]; }
node_modules_install e2e has_sdk ci --no-audit --no-fund
