#!/usr/bin/env bash
# Times `the-loop check --all --recompute --format json` over the corpus against
# a floor measured in the same run on the same files: reading and hashing every
# markdown file once. Then builds 10x and 100x copies of the corpus and shows
# how time and peak memory grow.
#
#   bench/check.sh [CORPUS_DIR]     (default ../shared/corpus/the-loop-v11.2.0)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-../shared/corpus/the-loop-v11.2.0}
if [ ! -d "$corpus/docs/specs" ]; then
  echo "bench/check.sh: no corpus at $corpus; nothing to measure" >&2
  exit 0
fi
runs=${RUNS:-7}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/the-loop" ./cmd/the-loop
: > "$work/config.yaml"
export THE_LOOP_DB="$work/none.db" THE_LOOP_CONFIG="$work/config.yaml"

# median wall-clock seconds of $runs runs of "$@"
median() {
  local times=()
  for _ in $(seq "$runs"); do
    local s e
    s=$(date +%s.%N)
    local rc=0
    "$@" >/dev/null 2>"$work/err" || rc=$?
    if [ "$rc" -gt 1 ]; then cat "$work/err" >&2; exit 1; fi
    e=$(date +%s.%N)
    times+=("$(echo "$e - $s" | bc -l)")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

# peak resident set in KiB of one run of "$@"
peak_kib() {
  /usr/bin/time -f '%M' -o "$work/mem" "$@" >/dev/null 2>&1 || true
  tail -1 "$work/mem"
}

floor() { find "$1/docs/specs" -name '*.md' -exec cat {} + | sha256sum; }
check() { "$work/the-loop" check --all --recompute --format json --repo "$1"; }

copies() { # copies N: a repo with N copies of the corpus's work items
  local n=$1 dir="$work/x$1"
  mkdir -p "$dir/docs/specs"
  for i in $(seq "$n"); do
    for d in "$corpus"/docs/specs/*/; do
      cp -r "$d" "$dir/docs/specs/$(basename "$d")-c$i"
    done
  done
  echo "$dir"
}

printf '%-10s %8s %10s %10s %8s %12s\n' corpus items floor_s check_s ratio peak_MiB
for n in 1 10 100; do
  if [ "$n" = 1 ]; then dir=$corpus; else dir=$(copies "$n"); fi
  items=$(find "$dir/docs/specs" -mindepth 1 -maxdepth 1 -type d | wc -l)
  f=$(median floor "$dir")
  c=$(median check "$dir")
  kib=$(peak_kib "$work/the-loop" check --all --recompute --format json --repo "$dir")
  printf '%-10s %8d %10.4f %10.4f %8.2f %12.1f\n' "x$n" "$items" "$f" "$c" "$(echo "$c / $f" | bc -l)" "$(echo "$kib / 1024" | bc -l)"
done
