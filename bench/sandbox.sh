#!/usr/bin/env bash
# What confining a session adds to its launch: /bin/true started directly
# (the floor) against /bin/true through the launcher with every layer this
# host gives (as root: the sessions' account too), in the same run — once
# through the-loop-sandbox (the launcher alone), once through
# `the-loop sandbox-exec` (the fallback when the-loop-sandbox is not
# installed beside the-loop).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
chmod 0755 "$bin"
CGO_ENABLED=0 go build -trimpath -o "$bin/the-loop" ./cmd/the-loop
CGO_ENABLED=0 go build -trimpath -o "$bin/the-loop-sandbox" ./cmd/the-loop-sandbox
for launcher in the-loop-sandbox the-loop; do
	echo "launcher: $launcher"
	THE_LOOP_BENCH_EXE="$bin/$launcher" go test -run '^$' -bench 'Launch' -benchtime "${N:-40}x" -count "${COUNT:-3}" ./agents/sandbox |
		awk '/^BenchmarkLaunch\/unconfined/ {u += $3; nu++} /^BenchmarkLaunch\/confined/ {c += $3; nc++} /^Benchmark/ {print}
			END { if (nu && nc) printf "floor %.1f ms, confined %.1f ms: +%.1f ms per launch (%.2fx the floor)\n", u/nu/1e6, c/nc/1e6, (c/nc-u/nu)/1e6, (c/nc)/(u/nu) }'
done
