#!/usr/bin/env bash
# Prints what an idle poll cycle costs with dependencies on against the same
# cycle with them off (the floor, measured in the same run), for 10, 100 and
# 1,000 armed items on the fake GitHub (chains of ten, each item held by the
# one before it): requests sent per cycle (REST and GraphQL, GitHub and
# Jira), GitHub quota spent, and the ratio on/off. The goal is a ratio of at
# most 1.2.
#
#   bench/deps.sh            (CYCLES=3 cycles per case)
set -euo pipefail
cd "$(dirname "$0")/.."
cycles=${CYCLES:-3}
go test ./service -run '^$' -bench '^BenchmarkDependencyCycle$' -benchtime "${cycles}x" -timeout 30m 2>&1 |
awk '
/FAIL|Error Trace|Error:/ { print > "/dev/stderr" }
/^BenchmarkDependencyCycle\// {
  split($1, parts, "/"); n = parts[2]; sub("items=", "", n); mode = parts[3]; sub("-[0-9]+$", "", mode)
  ms = $3 / 1e6
  for (i = 4; i < NF; i++) { if ($(i+1) == "quota/cycle") q = $i; if ($(i+1) == "requests/cycle") r = $i }
  key = n " " mode; req[key] = r; quota[key] = q; time[key] = ms; ns[n] = 1
}
END {
  printf "%-7s %-5s %14s %12s %10s %18s\n", "items", "deps", "requests/cycle", "quota/cycle", "ms/cycle", "requests on/off"
  split("10 100 1000", order, " ")
  for (k = 1; k <= 3; k++) {
    n = order[k]; if (!(n in ns)) continue
    split("off on", modes, " ")
    for (m = 1; m <= 2; m++) {
      key = n " " modes[m]
      ratio = req[n " off"] > 0 ? sprintf("%.2f", req[key] / req[n " off"]) : "-"
      printf "%-7s %-5s %14.1f %12.1f %10.1f %18s\n", n, modes[m], req[key], quota[key], time[key], ratio
    }
  }
}'
