#!/usr/bin/env bash
# Benchmarks the session supervisor's per-cycle overhead in one run: a
# steady-state cycle with 100 items standing on agent nodes and 20 live
# sessions (real fake-harness processes, a real SQLite store) against a
# cycle with nothing watched on the same supervisor setup (the floor).
# Prints wall time, CPU time (all threads, via getrusage), bytes and
# allocations per cycle, and the ratios to the floor.
#
#   bench/sessions.sh        (CYCLES=2000 cycles per benchmark; COUNT=3 runs)
set -euo pipefail
cd "$(dirname "$0")/.."
cycles=${CYCLES:-2000}
count=${COUNT:-3}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

go test ./agents/sessions -run '^$' -bench '^BenchmarkCycle(Noop|100Items20Live)$' \
  -benchtime "${cycles}x" -count "$count" 2>/dev/null | grep '^Benchmark' | tee "$out" >&2

# metric NAME UNIT: the median over -count runs of the value before UNIT.
metric() {
  awk -v name="$1" -v unit="$2" '
    $1 ~ "^Benchmark" name "(-[0-9]+)?$" { for (i = 2; i < NF; i++) if ($(i+1) == unit) print $i }' "$out" |
    sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else print v[int((NR + 1) / 2)] }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0f", a / b; else print "nan" }'; }

echo
printf '%-26s %12s %12s %10s %10s\n' benchmark ns/cycle cpu-ns/cycle B/cycle allocs
for b in CycleNoop Cycle100Items20Live; do
  printf '%-26s %12s %12s %10s %10s\n' "$b" "$(metric "$b" ns/op)" "$(metric "$b" cpu-ns/op)" "$(metric "$b" B/op)" "$(metric "$b" allocs/op)"
done
echo "ratio to the no-op floor: wall $(ratio "$(metric Cycle100Items20Live ns/op)" "$(metric CycleNoop ns/op)")x," \
  "cpu $(ratio "$(metric Cycle100Items20Live cpu-ns/op)" "$(metric CycleNoop cpu-ns/op)")x," \
  "bytes $(ratio "$(metric Cycle100Items20Live B/op)" "$(metric CycleNoop B/op)")x"
awk -v ns="$(metric Cycle100Items20Live cpu-ns/op)" 'BEGIN { printf "share of a 60 s poll interval: %.6f%%\n", ns / 60e9 * 100 }'
