#!/usr/bin/env bash
# Builds the-loop the way the README documents (CGO_ENABLED=0) and proves the result is one
# static binary: the build info records CGO_ENABLED=0 and the ELF file has no interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$tmp/the-loop"
CGO_ENABLED=0 go build -trimpath -o "$bin" ./cmd/the-loop

info=$(go version -m "$bin")
echo "$info" | grep -qE '^\s+build\s+CGO_ENABLED=0$' || { echo "$info"; echo "build info lacks CGO_ENABLED=0"; exit 1; }

if command -v file >/dev/null 2>&1; then
  desc=$(file -b "$bin")
  case "$desc" in
    *"statically linked"*) ;;
    *) echo "file: $desc"; echo "the binary is not statically linked"; exit 1 ;;
  esac
elif command -v ldd >/dev/null 2>&1; then
  if ldd "$bin" >/dev/null 2>&1; then ldd "$bin"; echo "ldd found dynamic dependencies"; exit 1; fi
else
  echo "neither file nor ldd is installed: checked the build info only"
fi
"$bin" version >/dev/null
echo "static: $(go version "$bin" | cut -d' ' -f2-) CGO_ENABLED=0, statically linked"
