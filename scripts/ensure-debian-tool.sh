#!/usr/bin/env bash
# Makes a command available from a Debian package, for the ensure-*.sh scripts that need one tool:
#   ensure-debian-tool.sh LABEL PACKAGE OVERRIDE_VAR COMMAND...
# Prints the first COMMAND found (or the binary $OVERRIDE_VAR names); when none is, installs
# PACKAGE if we are root, else says what to install and fails.
set -uo pipefail
label=$1 package=$2 override=$3
shift 3

find_tool() {
  local candidate
  for candidate in "${!override:-}" "$@"; do
    [[ -n "$candidate" ]] || continue
    if command -v "$candidate" >/dev/null 2>&1; then
      command -v "$candidate"
      return 0
    fi
  done
  return 1
}

if found=$(find_tool "$@"); then
  echo "$label: $found"
  exit 0
fi
if [[ "$(id -u)" -eq 0 ]]; then
  echo "$label: no $package found; installing Debian's $package package" >&2
  export DEBIAN_FRONTEND=noninteractive
  if { apt-get install -y -qq --no-install-recommends "$package" >/dev/null 2>&1 ||
       { apt-get update -qq && apt-get install -y -qq --no-install-recommends "$package" >/dev/null; }; } && found=$(find_tool "$@"); then
    echo "$label: $found"
    exit 0
  fi
  echo "$label: could not install the $package package (apt-get install $package)" >&2
  exit 1
fi
echo "$label: no $package found and not root: install Debian's $package package" \
  "(sudo apt-get install $package) or set $override to its binary" >&2
exit 1
