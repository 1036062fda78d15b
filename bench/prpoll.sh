#!/usr/bin/env bash
# Counts what one pull-request poll cycle costs against the fake GitHub with
# 50 open issues and 50 open pull requests: requests, REST quota and GraphQL
# points per cycle, idle, with CI running, and busy (every pull request
# pushed). The floor is the idle cycle of the same run (two conditional
# listings); x-floor-requests is each case's requests over it.
#
#   bench/prpoll.sh          (CYCLES=20 cycles per case)
set -euo pipefail
cd "$(dirname "$0")/.."
cycles=${CYCLES:-20}
go test ./integrations/github -run '^$' -bench '^BenchmarkPollCycle$' -benchtime "${cycles}x" |
  awk '/^BenchmarkPollCycle\// {
    name = $1; sub(/^BenchmarkPollCycle\//, "", name); sub(/-[0-9]+$/, "", name)
    for (i = 3; i < NF; i++) m[$(i+1)] = $i
    printf "%-12s %6s requests  %5s REST quota  %4s GraphQL points  %6sx floor\n", name,
      m["requests/cycle"], m["core-quota/cycle"], m["graphql-points/cycle"], m["x-floor-requests"]
  }'
