#!/usr/bin/env bash
# Makes a headless Chromium available for the HTML report's browser test (npm run test:browser):
# installs Debian's chromium package when it is missing and we are root; otherwise says what to
# install and fails, since that test has nothing to check without a browser.
# PIPELOCK_CHROMIUM names a browser binary to use instead.
exec "$BASH" "$(dirname "${BASH_SOURCE[0]}")/ensure-debian-tool.sh" ensure-chromium chromium PIPELOCK_CHROMIUM \
  chromium chromium-browser google-chrome-stable google-chrome
