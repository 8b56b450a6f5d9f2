#!/usr/bin/env bash
# Makes Artillery available for test/integration/artillery-run.test.ts (npm test's integration tier):
# artillery-engine-pipelock declares it as a peer only, since its ~700 packages (AWS and Azure SDKs,
# Playwright) would make every npm ci of the library heavy. Prints the path of the artillery
# command. Honours PIPELOCK_ARTILLERY (an artillery binary); otherwise installs the pinned version
# once into ${XDG_CACHE_HOME:-$HOME/.cache}/pipelock/artillery-<version> and finds it there after.
# --ignore-scripts: the postinstall of @playwright/browser-chromium downloads a browser, which only
# Artillery's playwright engine uses (and which fails offline); `artillery run` needs no other script.
set -euo pipefail

kVersion=2.0.34
cache="${XDG_CACHE_HOME:-$HOME/.cache}/pipelock"
dir="$cache/artillery-$kVersion"
bin="$dir/node_modules/.bin/artillery"
hint="run npm run ensure-artillery with the npm registry reachable (it installs artillery@$kVersion into $dir), or set PIPELOCK_ARTILLERY=/path/to/artillery (Artillery 2)"

fail() {
  echo "ensure-artillery: $*" >&2
  exit 1
}

# The installed package.json's version, read without running Artillery (its start takes ~1 s).
installed() {
  [[ -x "$bin" ]] && node -e "process.exit(require(process.argv[1]).version === process.argv[2] ? 0 : 1)" "$dir/node_modules/artillery/package.json" "$kVersion" 2>/dev/null
}

if [[ -n "${PIPELOCK_ARTILLERY:-}" ]]; then
  found=$(command -v "$PIPELOCK_ARTILLERY" 2>/dev/null) ||
    fail "PIPELOCK_ARTILLERY=$PIPELOCK_ARTILLERY is not an executable; unset it or point it at an artillery command (Artillery 2)"
  echo "ensure-artillery: $found"
  exit 0
fi

if installed; then
  echo "ensure-artillery: $bin"
  exit 0
fi

mkdir -p "$cache" || fail "cannot create the cache folder $cache"
# One install at a time (CI and a developer may both call this): the second waits, then finds the first's.
exec 9>"$cache/artillery.lock"
if ! flock -n 9; then
  echo "ensure-artillery: another ensure-artillery is installing (lock $cache/artillery.lock); waiting for it" >&2
  flock -w 900 9 || fail "waited 15 min for the lock $cache/artillery.lock; is an install stuck? (see ps for ensure-artillery.sh)"
fi
if installed; then
  echo "ensure-artillery: $bin"
  exit 0
fi

# Installed beside its final place, then renamed into it, so no reader ever sees half an install.
staging="$cache/.artillery-$kVersion.$$"
log="$staging.log"
trap 'rm -rf "$staging" "$log"' EXIT
mkdir -p "$staging"
echo '{ "private": true, "description": "artillery for pipelock tests (scripts/ensure-artillery.sh)" }' >"$staging/package.json"
echo "ensure-artillery: installing artillery@$kVersion into $dir (npm install --ignore-scripts; ~1-3 min)" >&2
started=$SECONDS
if ! (cd "$staging" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error "artillery@$kVersion") >"$log" 2>&1; then
  echo "ensure-artillery: npm install artillery@$kVersion failed; its output ends with:" >&2
  tail -n 30 "$log" >&2
  fail "$hint"
fi
echo "ensure-artillery: installed in $((SECONDS - started)) s" >&2
rm -rf "$dir"
mv -T "$staging" "$dir" || fail "cannot move $staging to $dir"
installed || fail "$bin is missing or not artillery $kVersion after installing it; $hint"
echo "ensure-artillery: $bin"
