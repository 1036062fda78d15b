#!/usr/bin/env bash
# Runs the whole loop locally: a fake GitHub, a bare git remote, the poller
# and a scripted harness (or Claude Code: examples/demo.sh -harness claude).
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./examples/demo "$@"
