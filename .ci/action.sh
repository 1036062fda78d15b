#!/usr/bin/env bash
# Runs the GitHub Action's steps locally: TestActionStepsRunLocally parses action.yml, evaluates its
# inputs, runs each `run:` step with bash as the runner does (Go on PATH stands in for setup-go),
# against copies of testdata/repo, and asserts the exit codes, annotations and job summary.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -run '^TestAction' -v ./cmd/the-loop/
