#!/usr/bin/env bash
# Counts what one poll cycle of the poller costs with 50 work items, each
# with one open, linked pull request whose loop runs: requests, REST quota
# and GraphQL points per cycle, idle, with CI running on every pull
# request, busy (every pull request pushed, CI finished), busy with every
# pull request's loop parked on ready-to-ship (pushed, CI running: the gate
# reads GitHub for each), and the idle and busy cycles again with the
# dependency step on. The floor is the idle cycle of the same run (the two
# conditional listings); x-floor-requests is each case's requests over it.
#
#   bench/pollprs.sh          (CYCLES=5 cycles per case)
set -euo pipefail
cd "$(dirname "$0")/.."
cycles=${CYCLES:-5}
go test ./service -run '^$' -bench '^BenchmarkPollerPullCycle$' -benchtime "${cycles}x" |
  awk '/^BenchmarkPollerPullCycle\// {
    name = $1; sub(/^BenchmarkPollerPullCycle\//, "", name); sub(/-[0-9]+$/, "", name)
    for (i = 3; i < NF; i++) m[$(i+1)] = $i
    printf "%-14s %6s requests  %5s REST quota  %4s GraphQL points  %6sx floor\n", name,
      m["requests/cycle"], m["core-quota/cycle"], m["graphql-points/cycle"], m["x-floor-requests"]
  }'
