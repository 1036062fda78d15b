#!/usr/bin/env bash
# Install the agent CLIs the codex, gemini and opencode harness adapters
# were checked against (pinned in agents/package.json and package-lock.json)
# for the real-CLI checks (agents/harness/agents_cli_test.go): every flag
# an adapter emits must be listed by the CLI's own help, and the MCP
# configuration it generates must show the-loop's server in the CLI's
# `mcp list`. No credential is needed and no model is called.
#
# Exits 0 without installing when npm is missing or the packages cannot be
# installed here (no registry, unsupported platform): the checks then skip.
# Idempotent: skips the install when node_modules matches the lock file.
# npm install, not npm ci: the lock holds the native packages of this
# platform only (npm leaves the others out), which npm ci refuses.
# The stamp is written last, so a check never runs against a half install.
# node_modules links to a cache of installs keyed by the lock (node-cache.sh).
set -uo pipefail
cd "$(dirname "$0")/agents"
. ../node-cache.sh

skip() { echo "testdata/e2e/install-agents.sh: $* — the agent CLI checks will skip"; exit 0; }

command -v npm >/dev/null 2>&1 || skip "npm not found"
stamp=node_modules/.the-loop-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
runs() { node_modules/.bin/codex --version && node_modules/.bin/gemini --version && node_modules/.bin/opencode --version; }
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && runs >/dev/null 2>&1; then
  echo "testdata/e2e/install-agents.sh: codex, gemini and opencode match package-lock.json"
  exit 0
fi
log=$(mktemp)
runs_quietly() { runs >/dev/null 2>&1 || { echo "an installed agent CLI does not run on this platform" >>"$log"; return 1; }; }
if ! node_modules_install agents runs_quietly install --no-audit --no-fund --no-save >>"$log" 2>&1; then
  tail -5 "$log"; rm -f "$log"
  skip "npm could not install the agent CLIs (is the registry reachable?), or one does not run here"
fi
rm -f "$log"
echo "testdata/e2e/install-agents.sh: installed $(node_modules/.bin/codex --version), gemini $(node_modules/.bin/gemini --version), opencode $(node_modules/.bin/opencode --version)"
