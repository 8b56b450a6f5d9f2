#!/usr/bin/env bash
# Makes sure a Valkey >= 9 server binary is available for the valkey test tier (npm test) and
# test/integration/valkey-commands.test.ts. Honours PIPELOCK_VALKEY_SERVER (a path or a command
# name); otherwise uses the build cached at ${XDG_CACHE_HOME:-$HOME/.cache}/pipelock/valkey-server,
# a link to valkey-<version>/bin/valkey-server beside it (test/helpers/valkey.ts reads the same
# link), and, when running as root, builds one there first. Debian bookworm has no Valkey 9
# package, so the build takes the source package from Debian unstable (whose URIs and key come
# from this machine's own debian.sources) through a private apt state: the machine's own apt
# lists are not changed.
# The first build (Valkey 9.1.2: apt-get update and source ~3 s, make -j2 of the server alone without
# TLS ~89 s, 98 s with valkey-cli) took ~1.5 min in all on a 2-core AMD EPYC (2 min 20 s on a slower
# host); later runs find the cached binary in milliseconds.
set -euo pipefail

kMinMajor=9
debian_sources=/etc/apt/sources.list.d/debian.sources
cache="${XDG_CACHE_HOME:-$HOME/.cache}/pipelock"
link="$cache/valkey-server"
hint="run npm run ensure-valkey as root (it builds Valkey from Debian unstable's source into $cache), or set PIPELOCK_VALKEY_SERVER=/path/to/valkey-server (Valkey >= $kMinMajor)"

fail() {
  echo "ensure-valkey: $*" >&2
  exit 1
}

# Prints the version (e.g. 9.1.2) when $1 runs and says it is Valkey >= kMinMajor; fails otherwise.
valkey_version() {
  local out
  out=$("$1" --version 2>/dev/null) || return 1
  [[ $out =~ ^Valkey\ server\ v=([0-9]+)\.([0-9]+)\.([0-9]+) ]] || return 1
  ((BASH_REMATCH[1] >= kMinMajor)) || return 1
  echo "${BASH_REMATCH[1]}.${BASH_REMATCH[2]}.${BASH_REMATCH[3]}"
}

found() {
  echo "ensure-valkey: $1: $("$1" --version)"
  exit 0
}

if [[ -n "${PIPELOCK_VALKEY_SERVER:-}" ]]; then
  server=$(command -v "$PIPELOCK_VALKEY_SERVER" 2>/dev/null) ||
    fail "PIPELOCK_VALKEY_SERVER=$PIPELOCK_VALKEY_SERVER is not an executable; unset it or point it at a valkey-server (Valkey >= $kMinMajor)"
  valkey_version "$server" >/dev/null ||
    fail "PIPELOCK_VALKEY_SERVER=$PIPELOCK_VALKEY_SERVER does not report Valkey >= $kMinMajor (its --version: $("$server" --version 2>&1 | head -n 1)); unset it or point it at a valkey-server (Valkey >= $kMinMajor)"
  found "$server"
fi

if valkey_version "$link" >/dev/null; then found "$link"; fi

if [[ "$(id -u)" -ne 0 ]]; then
  fail "no Valkey >= $kMinMajor at $link and not root, so not building one; $hint"
fi

mkdir -p "$cache" || fail "cannot create the cache folder $cache"
# One build at a time (CI and a test may both call this): the second waits, then finds the first's.
exec 9>"$cache/valkey.lock"
if ! flock -n 9; then
  echo "ensure-valkey: another ensure-valkey is building Valkey (lock $cache/valkey.lock); waiting for it" >&2
  flock -w 1800 9 || fail "waited 30 min for the lock $cache/valkey.lock; is a build stuck? (see ps for ensure-valkey.sh)"
fi
if valkey_version "$link" >/dev/null; then found "$link"; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/valkey-build.XXXXXX") || fail "cannot create a temp dir for the build"
trap 'rm -rf "$work"' EXIT

# Runs one named step quietly; on failure names the step and quotes the end of its output.
step() {
  local name=$1
  shift
  echo "ensure-valkey: $name" >&2
  if ! "$@" >"$work/step.log" 2>&1; then
    echo "ensure-valkey: step '$name' failed: $*; its output ends with:" >&2
    tail -n 30 "$work/step.log" >&2
    echo "ensure-valkey: $hint" >&2
    exit 1
  fi
}

export DEBIAN_FRONTEND=noninteractive
if ! command -v dpkg-source >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1 || ! command -v cc >/dev/null 2>&1; then
  # apt-get source unpacks with dpkg-source (dpkg-dev); the build needs make and a C compiler.
  step 'install dpkg-dev and build-essential (apt-get)' \
    bash -c 'apt-get install -y -qq dpkg-dev build-essential || { apt-get update -qq && apt-get install -y -qq dpkg-dev build-essential; }'
fi

# The deb-src entry for unstable: the stanza of $debian_sources whose URIs name the debian archive
# (not debian-security), its URI and Signed-By kept as they are (a keyring path or an inline key).
[[ -r $debian_sources ]] || fail "cannot read $debian_sources to find this machine's Debian mirror; $hint"
mkdir -p "$work/apt/sources.list.d" "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/src"
awk '
  BEGIN { RS = ""; FS = "\n" }
  !done {
    uri = ""; signed = ""; field = ""
    for (i = 1; i <= NF; i++) {
      line = $i
      if (line ~ /^#/) continue
      if (line ~ /^[ \t]/) { if (field == "signed-by") signed = signed "\n" line; continue }
      field = tolower(substr(line, 1, index(line, ":") - 1))
      value = substr(line, index(line, ":") + 1)
      gsub(/^[ \t]+|[ \t]+$/, "", value)
      if (field == "signed-by") signed = value
      if (field == "uris") { n = split(value, uris, /[ \t]+/); for (j = 1; j <= n; j++) if (uris[j] ~ /\/debian\/?$/) uri = uris[j] }
    }
    if (uri == "") next
    print "Types: deb-src"; print "URIs: " uri; print "Suites: unstable"; print "Components: main"
    if (signed != "") print "Signed-By: " signed
    done = 1
  }
' "$debian_sources" >"$work/apt/sources.list.d/unstable.sources"
[[ -s "$work/apt/sources.list.d/unstable.sources" ]] ||
  fail "no stanza in $debian_sources names the debian archive (URIs ending in /debian); $hint"

# A private source list, lists and cache: the machine's apt state and other packages are untouched.
# The sandbox user _apt cannot write into the 0700 temp dir, so apt downloads as root here.
apt_private=(
  -o "Dir::Etc::SourceList=/dev/null"
  -o "Dir::Etc::SourceParts=$work/apt/sources.list.d"
  -o "Dir::State::Lists=$work/apt/lists"
  -o "Dir::Cache=$work/apt/cache"
  -o "APT::Sandbox::User=root"
)
step 'apt-get update (Debian unstable sources, private lists)' apt-get "${apt_private[@]}" update
step 'apt-get source valkey (Debian unstable)' bash -c 'cd "$1" && shift && apt-get "$@" source valkey' _ "$work/src" "${apt_private[@]}"
srcdir=$(find "$work/src" -mindepth 1 -maxdepth 1 -type d -name 'valkey-*' | head -n 1)
[[ -n $srcdir ]] || fail "apt-get source valkey left no valkey-* folder in $work/src"

# One make in src/: the top Makefile runs a sub-make per goal, and two in parallel race on deps/.
# The bundled jemalloc and Lua are built and linked statically, so the binary needs nothing else.
started=$SECONDS
# Only the server: nothing here runs valkey-cli.
step "build $(basename "$srcdir") (make -j2 valkey-server)" make -C "$srcdir/src" -j2 valkey-server
echo "ensure-valkey: built in $((SECONDS - started)) s" >&2

version=$(valkey_version "$srcdir/src/valkey-server") ||
  fail "the built $srcdir/src/valkey-server does not report Valkey >= $kMinMajor: $("$srcdir/src/valkey-server" --version 2>&1 | head -n 1)"

# Staged beside its final place, then renamed into it, so no reader ever sees half a binary.
staging="$cache/.valkey-$version.$$"
trap 'rm -rf "$work" "$staging" "$link.$$"' EXIT
step "install valkey-$version into $cache" install -D -s -m 755 -t "$staging/bin" "$srcdir/src/valkey-server"
rm -rf "$cache/valkey-$version"
mv -T "$staging" "$cache/valkey-$version" || fail "cannot move $staging to $cache/valkey-$version"
if ! { ln -sfn "valkey-$version/bin/valkey-server" "$link.$$" && mv -Tf "$link.$$" "$link"; }; then
  fail "cannot link $link to valkey-$version/bin/valkey-server"
fi
valkey_version "$link" >/dev/null || fail "$link does not run after installing it"
found "$link"
