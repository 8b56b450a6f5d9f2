#!/usr/bin/env bash
# Makes sure a redis-server binary is available for the integration tests and local masters.
# Honours PIPELOCK_REDIS_SERVER (a path or a command name); otherwise looks for redis-server on
# PATH and, when running as root, installs Debian's package. That package also starts a service
# on port 6379: harmless, nothing here uses it.
set -euo pipefail

install_hint='install it with: apt-get install redis-server (as root), or set PIPELOCK_REDIS_SERVER=/path/to/redis-server'

if [[ -n "${PIPELOCK_REDIS_SERVER:-}" ]]; then
  if ! command -v "$PIPELOCK_REDIS_SERVER" >/dev/null 2>&1; then
    echo "ensure-redis: PIPELOCK_REDIS_SERVER=$PIPELOCK_REDIS_SERVER is not an executable; $install_hint" >&2
    exit 1
  fi
  server="$PIPELOCK_REDIS_SERVER"
elif command -v redis-server >/dev/null 2>&1; then
  server=redis-server
elif [[ "$(id -u)" -eq 0 ]]; then
  echo "ensure-redis: redis-server not found; installing the redis-server package" >&2
  export DEBIAN_FRONTEND=noninteractive
  # No registry (offline, a mirror down): fail in seconds with the hint, not after apt's retries.
  apt_fast=(-o Acquire::Retries=0 -o Acquire::http::Timeout=15 -o Acquire::https::Timeout=15)
  if ! { apt-get "${apt_fast[@]}" update -qq && apt-get "${apt_fast[@]}" install -y -qq redis-server >/dev/null; } ||
    ! command -v redis-server >/dev/null 2>&1; then
    echo "ensure-redis: installing redis-server with apt-get failed (see above); $install_hint" >&2
    exit 1
  fi
  server=redis-server
else
  echo "ensure-redis: redis-server not found and not root, so not installing it; $install_hint" >&2
  exit 1
fi

echo "ensure-redis: $(command -v "$server"): $("$server" --version)"
