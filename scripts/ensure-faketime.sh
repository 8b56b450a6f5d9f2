#!/usr/bin/env bash
# Makes libfaketime available for the fault suite's clock-jump scenario (npm run faults): installs
# Debian's faketime package when it is missing and we are root. Never fails the run: without it
# the scenario emulates the jump's effect on the keys, and the results say so and why.
set -uo pipefail

multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
lib="${PIPELOCK_LIBFAKETIME:-/usr/lib/$multiarch/faketime/libfaketimeMT.so.1}"

if [[ -e "$lib" ]]; then
  echo "ensure-faketime: $lib"
elif [[ "$(id -u)" -eq 0 ]]; then
  echo "ensure-faketime: libfaketime not found; installing the faketime package" >&2
  export DEBIAN_FRONTEND=noninteractive
  if { apt-get install -y -qq faketime >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq faketime >/dev/null; }; } && [[ -e "$lib" ]]; then
    echo "ensure-faketime: $lib"
  else
    echo "ensure-faketime: could not install faketime; the clock-jump scenario will be emulated" >&2
  fi
else
  echo "ensure-faketime: libfaketime not found and not root; the clock-jump scenario will be emulated (apt-get install faketime)" >&2
fi
command -v cc >/dev/null 2>&1 || echo "ensure-faketime: no cc to build bench/faults/faketime/ftstubs.c; the clock-jump scenario will be emulated" >&2
exit 0
