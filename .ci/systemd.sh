#!/usr/bin/env bash
# Checks the shipped systemd unit with systemd's own tools: `systemd-analyze verify`
# (syntax, directives, the ExecStart binary) and `systemd-analyze security --offline`
# (exposure must stay in the "OK" band or better). Skips cleanly without systemd-analyze.
set -euo pipefail
cd "$(dirname "$0")/.."

unit=contrib/systemd/the-loop-poller.service
if ! command -v systemd-analyze >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "== installing systemd for systemd-analyze"
  (apt-get update -qq && apt-get install -y -qq --no-install-recommends systemd) >/dev/null 2>&1 || true
fi
if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "== systemd-analyze not found and not installable: skipping the unit checks"
  exit 0
fi
echo "== systemd unit: $(systemd-analyze --version | head -1)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# verify needs ExecStart's binary to exist: check a copy that runs the one just built.
CGO_ENABLED=0 go build -trimpath -o "$tmp/the-loop" ./cmd/the-loop
sed "s#^ExecStart=/usr/local/bin/the-loop #ExecStart=$tmp/the-loop #" "$unit" > "$tmp/the-loop-poller.service"
grep -q "^ExecStart=$tmp/the-loop " "$tmp/the-loop-poller.service" || { echo "ExecStart does not run /usr/local/bin/the-loop"; exit 1; }

# verify prints its findings and exits 0 on some of them: any output is a failure.
if ! out=$(systemd-analyze verify --man=no "$tmp/the-loop-poller.service" 2>&1) || [ -n "$out" ]; then
  echo "systemd-analyze verify $unit:"; echo "$out"; exit 1
fi
echo "verify: clean"

# Exposure is reported as 0.0-10.0; --threshold takes tenths. "OK" is below 5.0.
report=$(systemd-analyze security --offline=true --threshold=49 "$tmp/the-loop-poller.service" 2>&1) || {
  echo "$report" | grep -v '^✓'
  echo "systemd-analyze security: exposure is above the OK band"; exit 1
}
level=$(echo "$report" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) \([A-Z]*\).*/\1 \2/p')
case "$level" in
  *" PERFECT"|*" SAFE"|*" OK") echo "security: $level" ;;
  *) echo "$report"; echo "unexpected exposure level: '$level'"; exit 1 ;;
esac
