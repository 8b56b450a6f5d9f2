#!/usr/bin/env bash
# Runs the ensure-*.sh scripts it is given side by side, waits for all of them, and fails if any
# failed, naming it (each prints its own lines, prefixed with its name). npm test's pretest runs the
# Valkey build (two cores of compiling) beside the Artillery install (mostly the registry and the
# disk): one after the other they took ~95 s and ~33 s on a fresh 2-core machine.
set -uo pipefail

pids=()
for script in "$@"; do
  bash "$script" &
  pids+=($!)
done
status=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    echo "ensure-side-by-side: $(basename "${@:i+1:1}") failed (its lines are above)" >&2
    status=1
  fi
done
exit "$status"
