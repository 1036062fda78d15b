#!/usr/bin/env bash
# The real agent CLIs against their harness adapters. Installs the pinned
# codex, gemini and opencode (testdata/e2e/install-agents.sh; Claude Code has
# its own step) and runs the checks that need them: the help of each CLI
# lists every flag its adapter passes (with the values among its choices),
# and the CLI's own `mcp list`, given the MCP configuration the adapter
# generates for a session, shows the-loop's confined server (gemini and
# opencode start it and report it connected). No credential is needed and
# no model is called. When npm or the registry is not reachable the install
# says so and the checks skip.
#
#   .ci/agents.sh install   only install (.ci/run runs it in the background)
#   .ci/agents.sh check     only run the checks, once the install finished
#   .ci/agents.sh           both
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-all}
case "$mode" in
  all|install|check) ;;
  *) echo "usage: .ci/agents.sh [install|check]" >&2; exit 2 ;;
esac
if [ "$mode" != check ]; then
  testdata/e2e/install-agents.sh
fi
if [ "$mode" != install ]; then
  if [ ! -f testdata/e2e/agents/node_modules/.the-loop-lock.sha256 ]; then
    echo "== agent CLI checks skipped: the pinned CLIs are not installed (the install step above says why)"
    exit 0
  fi
  go test -count=1 -run '^TestRealCLIs' -v ./agents/harness
fi
