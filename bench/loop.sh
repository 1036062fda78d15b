#!/usr/bin/env bash
# Benchmarks the half that acts, each against a floor measured in the same
# run:
#  - reply to session start: the poll cycle that lists an authorized
#    `the-loop execute` until the session's process has started (the fake
#    harness wrote its pid), with 10 watched items; floor: an idle cycle over
#    the same items. The target is one poll interval (the wait for that
#    cycle) plus 1 s, so the cycle itself must stay under 1 s.
#  - poller overhead: one steady-state cycle over 100 watched issues, 20 of
#    them on an agent node with 20 live sessions (real processes), working
#    trees and the session step; floor: the same cycle without them (gates
#    only). CPU per cycle is the process's own (getrusage), memory is bytes
#    and allocations per cycle.
#
#   bench/loop.sh        (REPLIES=5 measured replies, CYCLES=10 cycles)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go test ./service -run '^$' -bench '^BenchmarkReplyToSessionStart$' -benchtime "${REPLIES:-5}x" 2>/dev/null | grep '^Benchmark' | tee "$out" >&2
go test ./service -run '^$' -bench '^BenchmarkPollerOverhead$' -benchtime "${CYCLES:-10}x" 2>/dev/null | grep '^Benchmark' | tee -a "$out" >&2

metric() { awk -v name="$1" -v unit="$2" '$1 ~ "^Benchmark" name "(-[0-9]+)?$" { for (i = 2; i < NF; i++) if ($(i+1) == unit) print $i }' "$out" | head -1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }'; }

reply=$(metric ReplyToSessionStart/reply ns/op); floor=$(metric ReplyToSessionStart/floor ns/op)
echo
printf 'reply to session start: %.0f ms (idle cycle floor %.0f ms, %sx); target: one poll interval + 1000 ms\n' \
  "$(awk -v v="$reply" 'BEGIN { print v / 1e6 }')" "$(awk -v v="$floor" 'BEGIN { print v / 1e6 }')" "$(ratio "$reply" "$floor")"
printf '%-32s %12s %12s %12s %10s\n' "poll cycle, 100 watched" ms/cycle cpu-ms/cycle KB/cycle allocs
for m in floor acting; do
  printf '%-32s %12.1f %12.1f %12.0f %10s\n' "$m" "$(awk -v v="$(metric PollerOverhead/$m ns/op)" 'BEGIN { print v / 1e6 }')" \
    "$(awk -v v="$(metric PollerOverhead/$m cpu-ns/op)" 'BEGIN { print v / 1e6 }')" \
    "$(awk -v v="$(metric PollerOverhead/$m B/op)" 'BEGIN { print v / 1024 }')" "$(metric PollerOverhead/$m allocs/op)"
done
echo "acting vs floor: cpu $(ratio "$(metric PollerOverhead/acting cpu-ns/op)" "$(metric PollerOverhead/floor cpu-ns/op)")x," \
  "bytes $(ratio "$(metric PollerOverhead/acting B/op)" "$(metric PollerOverhead/floor B/op)")x," \
  "allocs $(ratio "$(metric PollerOverhead/acting allocs/op)" "$(metric PollerOverhead/floor allocs/op)")x"
