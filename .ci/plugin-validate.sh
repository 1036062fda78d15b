#!/usr/bin/env bash
# Checks the Claude Code plugin with Claude Code itself — the copy
# testdata/e2e/install-claude.sh pinned, else @anthropic-ai/claude-code installed into
# a temporary directory (a native binary; its plugin commands need no API
# key) — validates the manifest and the
# marketplace strictly, installs the plugin from this repository's
# marketplace, and checks that every command and skill is in its inventory.
# Skips cleanly, exit 0, when npm cannot install the package.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The Claude Code testdata/e2e/install-claude.sh pinned (.ci/run installs it first),
# else a fresh install.
bin=testdata/e2e/claude/node_modules/.bin/claude
if ! "$bin" --version >/dev/null 2>&1; then
  bin=$tmp/node_modules/.bin/claude
  if ! command -v npm >/dev/null 2>&1 ||
    ! npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error @anthropic-ai/claude-code >/dev/null 2>&1 ||
    ! "$bin" --version >/dev/null 2>&1; then
    echo "   @anthropic-ai/claude-code could not be installed: plugin validation skipped"
    exit 0
  fi
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

# A private HOME keeps the check away from the user's Claude Code settings.
mkdir -p "$tmp/home"
claude() { HOME="$tmp/home" "$bin" "$@"; }
echo "   claude $(claude --version)"

claude plugin validate --strict .claude-plugin/plugin.json
claude plugin validate --strict .

claude plugin marketplace add ./ >/dev/null
claude plugin install the-loop@the-loop >/dev/null
details=$(claude plugin details the-loop@the-loop)
inventory=$(printf '%s\n' "$details" | sed -n 's/^ *Skills ([0-9]*) *//p')
missing=0
for f in plugin/commands/*.md skills/*/; do
  name=$(basename "$f" .md)
  case ", $inventory, " in
  *", $name, "*) ;;
  *) echo "   the installed plugin does not list $name (inventory: $inventory)"; missing=1 ;;
  esac
done
if [ "$missing" -ne 0 ]; then exit 1; fi
echo "   installed from the marketplace: $inventory"
