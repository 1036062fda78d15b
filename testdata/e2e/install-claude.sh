#!/usr/bin/env bash
# Install Claude Code (pinned in claude/package.json and package-lock.json)
# for the claude adapter's CLI check (agents/harness/claude_cli_test.go): every
# flag the adapter emits must appear in `claude --help`, and the MCP config
# it writes must connect through `claude mcp`. No API key is needed.
#
# Exits 0 without installing when npm is missing or the package cannot be
# installed here (no registry, unsupported platform): the check then skips.
# Idempotent: skips the install when node_modules matches the lock file.
# node_modules links to a cache of installs keyed by the lock (node-cache.sh).
set -uo pipefail
cd "$(dirname "$0")/claude"
. ../node-cache.sh

skip() { echo "testdata/e2e/install-claude.sh: $* — the claude CLI check will skip"; exit 0; }

command -v npm >/dev/null 2>&1 || skip "npm not found"
bin=node_modules/.bin/claude
stamp=node_modules/.the-loop-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && "$bin" --version >/dev/null 2>&1; then
  echo "testdata/e2e/install-claude.sh: claude $("$bin" --version) matches package-lock.json"
  exit 0
fi
log=$(mktemp)
claude_runs() {
  if ! "$bin" --version >/dev/null 2>&1; then
    # npm may hold back the package's own postinstall, which puts the native
    # binary in place; run it explicitly.
    node node_modules/@anthropic-ai/claude-code/install.cjs >/dev/null 2>&1 || true
  fi
  "$bin" --version >/dev/null 2>&1 || { echo "the installed claude does not run on this platform" >>"$log"; return 1; }
}
if ! node_modules_install claude claude_runs ci --no-audit --no-fund >>"$log" 2>&1; then
  tail -5 "$log"; rm -f "$log"
  skip "npm could not install @anthropic-ai/claude-code, or it does not run here"
fi
rm -f "$log"
echo "testdata/e2e/install-claude.sh: installed claude $("$bin" --version)"
