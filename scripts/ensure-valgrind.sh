#!/usr/bin/env bash
# Makes valgrind available for bench:ci's instruction-count gate (bench/ci/instructions.ts):
# installs Debian's valgrind package when it is missing and we are root; otherwise says what to
# install and fails, since instructions per cycle cannot be counted without it.
# PIPELOCK_VALGRIND names a valgrind binary to use instead.
exec "$BASH" "$(dirname "${BASH_SOURCE[0]}")/ensure-debian-tool.sh" ensure-valgrind valgrind PIPELOCK_VALGRIND valgrind
