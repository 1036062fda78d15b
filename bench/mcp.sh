#!/usr/bin/env bash
# Benchmarks the MCP server in one run: p50/p99 latency of `check` on one
# work item over stdio and over HTTP against a no-op tool on the same
# server (the floor) — asked again about an unchanged item, and with the
# item's folder changed before each call — and HTTP throughput with 16 concurrent clients (check,
# the no-op, and a no-op answering with check's report), with the CPU time
# each call costs. Prints the check/noop ratios and the targets. The clients
# speak JSON-RPC themselves, read a body of declared length into one buffer
# and decode only the answer's envelope, so the figures are the server's
# cost, not a client library's.
#
#   bench/mcp.sh     (CALLS=3000 calls per latency benchmark, TCALLS=20000 per
#                     throughput benchmark: a shorter run mostly measures its
#                     start; COUNT=1 runs)
set -euo pipefail
cd "$(dirname "$0")/.."
calls=${CALLS:-3000}
tcalls=${TCALLS:-20000}
count=${COUNT:-1}
out=$(mktemp)
bin=$(mktemp)
trap 'rm -f "$out" "$bin"' EXIT

go test -c -o "$bin" ./mcp
(cd mcp && "$bin" -test.run '^$' -test.bench '^Benchmark(Check|CheckChanged|Noop|NoopSized)(Stdio|HTTP)$' \
  -test.benchtime "${calls}x" -test.count "$count") | tee "$out" >&2
(cd mcp && "$bin" -test.run '^$' -test.bench '^Benchmark(Noop|NoopSized)?HTTPThroughput16$' \
  -test.benchtime "${tcalls}x" -test.count "$count") | tee -a "$out" >&2

# metric NAME UNIT: the median over -count runs of the value before UNIT.
metric() {
  awk -v name="$1" -v unit="$2" '
    $1 ~ "^Benchmark" name "(-[0-9]+)?$" { for (i = 2; i < NF; i++) if ($(i+1) == unit) print $i }' "$out" |
    sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else print v[int((NR + 1) / 2)] }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }'; }

echo
printf '%-14s %-6s %12s %12s %8s %12s %12s %8s\n' check transport check_p50_us noop_p50_us ratio check_p99_us noop_p99_us ratio
for kind in Check CheckChanged; do
  label=unchanged; [ "$kind" = CheckChanged ] && label="changed"
  for tr in Stdio HTTP; do
    cp50=$(metric "$kind$tr" p50-µs); np50=$(metric "Noop$tr" p50-µs)
    cp99=$(metric "$kind$tr" p99-µs); np99=$(metric "Noop$tr" p99-µs)
    printf '%-14s %-6s %12s %12s %8s %12s %12s %8s\n' "$label" "$tr" "$cp50" "$np50" "$(ratio "$cp50" "$np50")" "$cp99" "$np99" "$(ratio "$cp99" "$np99")"
  done
done
echo "unchanged: the same item asked again (answered from the server's memo); changed: the item's folder changes before each call"
echo "target: check p50 within 2x the no-op floor"
echo
echo "the answer's size: a no-op that answers with check's report, encoded the same way (noop_sized)"
printf '%-14s %-6s %12s %12s %8s\n' check transport check_p50_us sized_p50_us ratio
for kind in Check CheckChanged; do
  label=unchanged; [ "$kind" = CheckChanged ] && label="changed"
  for tr in Stdio HTTP; do
    cp50=$(metric "$kind$tr" p50-µs); sp50=$(metric "NoopSized$tr" p50-µs)
    printf '%-14s %-6s %12s %12s %8s\n' "$label" "$tr" "$cp50" "$sp50" "$(ratio "$cp50" "$sp50")"
  done
done
echo
printf '%-26s %10s %12s %10s %10s\n' "16 HTTP clients" calls/s cpu_us/call p50_us p99_us
for b in HTTPThroughput16 NoopHTTPThroughput16 NoopSizedHTTPThroughput16; do
  printf '%-26s %10s %12s %10s %10s\n' "$b" "$(metric "$b" calls/s)" "$(metric "$b" cpu-µs/call)" "$(metric "$b" p50-µs)" "$(metric "$b" p99-µs)"
done
ct=$(metric HTTPThroughput16 calls/s); nt=$(metric NoopHTTPThroughput16 calls/s)
echo "check/no-op throughput: $(ratio "$ct" "$nt") (target: at least 0.80; $(nproc) CPUs here)"
