# Sourced by the npm install scripts of the tests (testdata/e2e/install*.sh,
# internal/mermaid/testdata/oracle/install.sh); not run on its own.
#
# node_modules_install LABEL VERIFY NPM-ARGS... installs the current
# directory's package-lock.json with `npm NPM-ARGS...`, checks the result
# with the shell function VERIFY (run in the folder that holds the new
# node_modules), and stamps it with the lock's sha256.
#
# The install is kept in a cache outside the checkout, keyed by LABEL and
# the lock's sha256, and node_modules becomes a link to it: a fresh clone
# with an unchanged lock links in a moment instead of unpacking hundreds of
# megabytes again. A cache entry is installed, checked and stamped in a
# folder of its own and renamed into place only then, so an entry is whole
# or absent, and two runs at once never share a half install. Entries
# unused for 30 days are removed.
#
# The cache is $THE_LOOP_NODE_CACHE, by default
# ${XDG_CACHE_HOME:-$HOME/.cache}/the-loop/node_modules.
# THE_LOOP_NODE_CACHE=off (or no HOME, or a cache folder that cannot be
# made) installs into node_modules itself, as npm does.

node_modules_install() {
  local label=$1 verify=$2
  shift 2
  local want root entry tmp
  want=$(sha256sum package-lock.json | cut -d' ' -f1)
  rm -rf node_modules # as npm ci: a failed install leaves none behind
  root=${THE_LOOP_NODE_CACHE-}
  if [ -z "$root" ] && [ -n "${XDG_CACHE_HOME:-}" ]; then
    root=$XDG_CACHE_HOME/the-loop/node_modules
  elif [ -z "$root" ] && [ -n "${HOME:-}" ]; then
    root=$HOME/.cache/the-loop/node_modules
  fi
  if [ -z "$root" ] || [ "$root" = off ] || ! mkdir -p "$root" 2>/dev/null || [ ! -w "$root" ]; then
    npm "$@" && "$verify" && echo "$want" >node_modules/.the-loop-lock.sha256
    return
  fi
  entry=$root/$label-$want
  if [ "$(cat "$entry/node_modules/.the-loop-lock.sha256" 2>/dev/null)" != "$want" ]; then
    tmp=$(mktemp -d "$root/.$label.XXXXXX") || return 1
    cp package.json package-lock.json "$tmp/" || { rm -rf "$tmp"; return 1; }
    if ! (cd "$tmp" && npm "$@" && "$verify"); then
      rm -rf "$tmp"
      return 1
    fi
    echo "$want" >"$tmp/node_modules/.the-loop-lock.sha256"
    # An entry left unstamped by an older layout is replaced; a stamped one
    # that another run renamed into place meanwhile is kept, and ours dropped.
    [ -f "$entry/node_modules/.the-loop-lock.sha256" ] || rm -rf "$entry"
    mv -T "$tmp" "$entry" 2>/dev/null || rm -rf "$tmp"
  fi
  # The entry is stamped for this lock, or the install failed after all
  # (e.g. the rename did): no link to a half or foreign install.
  [ "$(cat "$entry/node_modules/.the-loop-lock.sha256" 2>/dev/null)" = "$want" ] || return 1
  touch "$entry" || true
  find "$root" -mindepth 1 -maxdepth 1 -name "$label-*" -mtime +30 -exec rm -rf {} + 2>/dev/null || true
  find "$root" -mindepth 1 -maxdepth 1 -name ".$label.*" -mtime +1 -exec rm -rf {} + 2>/dev/null || true
  ln -s "$entry/node_modules" node_modules
}
