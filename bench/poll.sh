#!/usr/bin/env bash
# Prints what one poll cycle costs against the fake GitHub for 10, 100 and
# 1,000 watched issues: requests sent and primary quota spent per idle cycle
# (nothing changed), per busy cycle (a tenth of the issues got a comment),
# and per cycle of the legacy floor measured in the same run (a provider
# built anew each cycle, every issue's comments listed unconditionally).
# From the quota it derives how many issues one token (5,000 requests an
# hour) can watch at a 60 s interval.
#
#   bench/poll.sh            (CYCLES=5 cycles per case)
set -euo pipefail
cd "$(dirname "$0")/.."
cycles=${CYCLES:-5}
go test ./service -run '^$' -bench '^BenchmarkPollCycle$' -benchtime "${cycles}x" 2>&1 |
awk '
/FAIL|Error Trace|Error:/ { print > "/dev/stderr" }
/^BenchmarkPollCycle\// {
  split($1, parts, "/"); n = parts[2]; sub("issues=", "", n); mode = parts[3]; sub("-[0-9]+$", "", mode)
  ms = $3 / 1e6
  for (i = 4; i < NF; i++) { if ($(i+1) == "quota/cycle") q = $i; if ($(i+1) == "requests/cycle") r = $i }
  key = n " " mode; req[key] = r; quota[key] = q; time[key] = ms; ns[n] = 1
}
END {
  budget = 5000 / 60   # quota per cycle one token affords at a 60 s interval
  printf "%-7s %-7s %14s %13s %10s %16s %22s\n", "issues", "cycle", "requests/cycle", "quota/cycle", "ms/cycle", "quota vs legacy", "watchable at 60 s"
  split("10 100 1000", order, " ")
  for (k = 1; k <= 3; k++) {
    n = order[k]; if (!(n in ns)) continue
    split("idle busy legacy", modes, " ")
    for (m = 1; m <= 3; m++) {
      key = n " " modes[m]
      ratio = quota[n " legacy"] > 0 ? sprintf("%.3f", quota[key] / quota[n " legacy"]) : "-"
      if (quota[key] == 0) watch = "no quota limit"
      else watch = sprintf("%d issues", int(n * budget / quota[key]))
      printf "%-7s %-7s %14.1f %13.1f %10.1f %16s %22s\n", n, modes[m], req[key], quota[key], time[key], ratio, watch
    }
  }
}'
