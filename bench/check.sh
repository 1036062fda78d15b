#!/usr/bin/env bash
# Measures `the-loop check --all --recompute --format json` over the corpus
# against a floor measured in the same run on the same files: finding,
# reading and hashing every markdown file once (find | cat | sha256sum).
# Then builds 10x and 100x copies of the corpus and shows how the ratio and
# peak memory grow.
#
# Figures are CPU time (user + system, children included) per run, the
# median of RUNS measurements (each of several runs at 1x and 10x), with the floor, this tree's binary and BEFORE's interleaved run
# by run, so a machine shared with other work slows all of them alike; wall
# time on a shared machine measures the neighbours. Peak memory is the
# median of the runs' maximum resident set.
#
#   bench/check.sh [CORPUS_DIR]          (default ../shared/corpus/the-loop-v11.2.0)
#   BEFORE=/path/to/the-loop bench/check.sh   also measures an earlier build, e.g. main's
#   RUNS=7 SCALES="1 10 100" bench/check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-}
if [ -z "$corpus" ]; then # the shared corpus beside the checkout, or beside its worktrees' folder
  for c in ../shared/corpus/the-loop-v11.2.0 ../../shared/corpus/the-loop-v11.2.0; do
    if [ -d "$c/docs/specs" ]; then corpus=$c; break; fi
  done
fi
corpus=${corpus:-../shared/corpus/the-loop-v11.2.0}
if [ ! -d "$corpus/docs/specs" ]; then
  echo "bench/check.sh: no corpus at $corpus; nothing to measure" >&2
  exit 0
fi
runs=${RUNS:-5}
scales=${SCALES:-1 10 100}
before=${BEFORE:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Both binaries are measured from plain copies: a file the linker has just
# written sits in the page cache in large folios, and mapping it counts
# several MiB more resident memory (37 against 23 MiB for `--version` on
# this machine) than a copy of the same bytes; peak memory would then
# measure how the file was made, not the program.
go build -o "$work/the-loop.built" ./cmd/the-loop
cat "$work/the-loop.built" > "$work/the-loop" && chmod +x "$work/the-loop" && rm "$work/the-loop.built"
if [ -n "$before" ]; then
  cat "$before" > "$work/before.bin" && chmod +x "$work/before.bin"
  before=$work/before.bin
fi
: > "$work/config.yaml"
export THE_LOOP_DB="$work/none.db" THE_LOOP_CONFIG="$work/config.yaml"

# measure NAME CMD...: one run of CMD, $reps times over in one shell (so
# that a run of tens of milliseconds is not lost in the 10 ms ticks of
# user and system time); appends "cpu_s wall_s peak_kib" per run to
# $work/NAME. The peak is the largest of the runs' own.
measure() {
  local name=$1 rc=0
  shift
  /usr/bin/time -f '%U %S %e %M' -o "$work/time" sh -c '
    n=$1; shift; i=0
    while [ "$i" -lt "$n" ]; do
      "$@" >/dev/null; rc=$?
      [ "$rc" -gt 1 ] && exit "$rc"
      i=$((i + 1))
    done
    exit 0' repeat "$reps" "$@" 2>"$work/err" || rc=$?
  if [ "$rc" -gt 1 ]; then cat "$work/err" >&2; exit 1; fi
  tail -1 "$work/time" | awk -v n="$reps" '{ printf "%.5f %.5f %d\n", ($1 + $2) / n, $3 / n, $4 }' >> "$work/$name"
}

# median NAME COLUMN
median() { awk -v c="$2" '{ print $c }' "$work/$1" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# the floor: find, read and hash every markdown file once
floor='find "$1/docs/specs" -name "*.md" -exec cat {} + | sha256sum'

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

head="corpus    items  floor_cpu_s  check_cpu_s  ratio  peak_MiB"
[ -n "$before" ] && head="$head  before_cpu_s  before_ratio  before_peak_MiB"
echo "$head"
for n in $scales; do
  if [ "$n" = 1 ]; then dir=$corpus; else dir=$(copies "$n"); fi
  items=$(find "$dir/docs/specs" -mindepth 1 -maxdepth 1 -type d | wc -l)
  reps=$(((20 + n - 1) / n)) # 20 at x1, 2 at x10, 1 at x100
  rm -f "$work/floor" "$work/check" "$work/before"
  for _ in $(seq "$runs"); do
    measure floor sh -c "$floor" floor "$dir"
    measure check "$work/the-loop" check --all --recompute --format json --repo "$dir"
    if [ -n "$before" ]; then
      measure before "$before" check --all --recompute --format json --repo "$dir"
    fi
  done
  f=$(median floor 1) c=$(median check 1) cm=$(median check 3)
  line=$(printf '%-9s %6d %12.3f %12.3f %6s %9.1f' "x$n" "$items" "$f" "$c" "$(ratio "$c" "$f")" "$(awk -v k="$cm" 'BEGIN { print k / 1024 }')")
  if [ -n "$before" ]; then
    b=$(median before 1) bm=$(median before 3)
    line="$line $(printf '%13.3f %13s %16.1f' "$b" "$(ratio "$b" "$f")" "$(awk -v k="$bm" 'BEGIN { print k / 1024 }')")"
  fi
  echo "$line"
  [ "$n" = 1 ] || rm -rf "$dir"
done
echo "goals: ratio <= 1.5 at x1, <= 1.2 at x10 and x100; peak memory not above before's"
