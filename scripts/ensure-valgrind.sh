#!/usr/bin/env bash
# Makes valgrind available for bench:ci's instruction-count gate (bench/ci/instructions.ts):
# installs Debian's valgrind package when it is missing and we are root; otherwise says what to
# install and fails, since instructions per cycle cannot be counted without it.
# PIPELOCK_VALGRIND names a valgrind binary to use instead.
set -uo pipefail

find_valgrind() {
  local candidate
  for candidate in "${PIPELOCK_VALGRIND:-}" valgrind; do
    [[ -n "$candidate" ]] || continue
    if command -v "$candidate" >/dev/null 2>&1; then
      command -v "$candidate"
      return 0
    fi
  done
  return 1
}

if found=$(find_valgrind); then
  echo "ensure-valgrind: $found"
  exit 0
fi
if [[ "$(id -u)" -eq 0 ]]; then
  echo "ensure-valgrind: no valgrind found; installing Debian's valgrind package" >&2
  export DEBIAN_FRONTEND=noninteractive
  if { apt-get install -y -qq --no-install-recommends valgrind >/dev/null 2>&1 ||
       { apt-get update -qq && apt-get install -y -qq --no-install-recommends valgrind >/dev/null; }; } && found=$(find_valgrind); then
    echo "ensure-valgrind: $found"
    exit 0
  fi
  echo "ensure-valgrind: could not install the valgrind package (apt-get install valgrind)" >&2
  exit 1
fi
echo "ensure-valgrind: no valgrind found and not root: install Debian's valgrind package" \
  "(sudo apt-get install valgrind) or set PIPELOCK_VALGRIND to a valgrind binary" >&2
exit 1
