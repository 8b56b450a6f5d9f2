#!/usr/bin/env bash
# Makes a headless Chromium available for the HTML report's browser test (npm run test:browser):
# installs Debian's chromium package when it is missing and we are root; otherwise says what to
# install and fails, since that test has nothing to check without a browser.
# PIPELOCK_CHROMIUM names a browser binary to use instead.
set -uo pipefail

find_chromium() {
  local candidate
  for candidate in "${PIPELOCK_CHROMIUM:-}" chromium chromium-browser google-chrome-stable google-chrome; do
    [[ -n "$candidate" ]] || continue
    if command -v "$candidate" >/dev/null 2>&1; then
      command -v "$candidate"
      return 0
    fi
  done
  return 1
}

if found=$(find_chromium); then
  echo "ensure-chromium: $found"
  exit 0
fi
if [[ "$(id -u)" -eq 0 ]]; then
  echo "ensure-chromium: no chromium found; installing Debian's chromium package" >&2
  export DEBIAN_FRONTEND=noninteractive
  if { apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 ||
       { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium >/dev/null; }; } && found=$(find_chromium); then
    echo "ensure-chromium: $found"
    exit 0
  fi
  echo "ensure-chromium: could not install the chromium package (apt-get install chromium)" >&2
  exit 1
fi
echo "ensure-chromium: no chromium found and not root: install Debian's chromium package" \
  "(sudo apt-get install chromium) or set PIPELOCK_CHROMIUM to a Chromium/Chrome binary" >&2
exit 1
