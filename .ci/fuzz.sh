#!/usr/bin/env bash
# Runs every fuzz target briefly. Budgets are execution counts (-fuzztime Nx),
# not durations: Go 1.26's fuzz coordinator can report a spurious
# "context deadline exceeded" when a duration budget ends while a worker is
# mid-input on a loaded machine (golang/go#75804, fixed in Go 1.27). A count
# has no deadline to race. Each count is a few seconds on a 2-core runner.
set -euo pipefail
cd "$(dirname "$0")/.."

# package target executions
targets=(
  "./handoff                FuzzParse                           100000"
  "./runtime/classify       FuzzReply                           5000"
  "./runtime/control        FuzzCommand                         15000"
  "./runtime/control        FuzzContainsTokenMatchesRegexp      20000"
  "./internal/markdown      FuzzContainsFoldASCII               40000"
  "./internal/markdown      FuzzFrontMatterFastPathMatchesYAML  40000"
  "./runtime/checklist      FuzzParse                           40000"
  "./internal/mermaid       FuzzCheck                           40000"
  "./config                 FuzzParse                           20000"
  "./runtime                FuzzParseState                      20000"
  "./runtime                FuzzParseTicketRef                  40000"
  "./integrations/providers FuzzParseRef                        40000"
  "./runtime/review         FuzzDecide                          40000"
  "./agents/harness         FuzzMeter                           20000"
  "./internal/itemid        FuzzPlainMatchesTheRule             40000"
  "./mcp                    FuzzDirectDecodeMatchesEncodingJSON 20000"
)
for t in "${targets[@]}"; do
  read -r pkg name count <<<"$t"
  echo "-- $pkg $name (${count} executions)"
  go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "${count}x"
done
