#!/usr/bin/env bash
# Lock-latency regression check for CI: runs `pipelock loadtest` on the baseline and on the change,
# alternately, RUNS times each, against the same Redis masters, then `pipelock report compare`.
# Exit code: compare's own (0 no regression, 1 a regression, 2 the runs could not be compared,
# 3 no verdict: fewer than 3 runs a side).
#
# Environment:
#   BASE_PIPELOCK  the baseline's pipelock command (e.g. "$RUNNER_TEMP/base/node_modules/.bin/pipelock")
#   NEW_PIPELOCK   the change's pipelock command (e.g. node_modules/.bin/pipelock)
#   SERVERS        comma-separated redis:// URLs of independent masters (only keys under a per-run
#                  prefix are written, and removed)
#   RUNS           runs per side (default 5: with no real change, every run of one side beating every
#                  run of the other happens by chance 1 time in 252 per metric)
#   LOAD_FLAGS     loadtest flags, the same for both sides (default: --duration 10s --warmup 2s)
#   LIMITS         --max-regression (default below: p99.9 of a 10 s run is too thin to judge)
#   OUT            directory for the results (default pipelock-results)
set -euo pipefail

: "${BASE_PIPELOCK:?names the pipelock command of the baseline}" "${NEW_PIPELOCK:?names the pipelock command of the change}" "${SERVERS:?gives the URLs of the masters}"
runs=${RUNS:-5}
out=${OUT:-pipelock-results}
limits=${LIMITS:-throughput=10%,p50=15%,p90=20%,p99=30%,p99.9=off}
read -r -a base_cmd <<<"$BASE_PIPELOCK"
read -r -a new_cmd <<<"$NEW_PIPELOCK"
read -r -a load <<<"${LOAD_FLAGS:---duration 10s --warmup 2s}"
mkdir -p "$out"

compare_args=()
for ((i = 1; i <= runs; i++)); do
  # Alternating, so that a runner growing slower or faster during the job weighs on both sides alike.
  for side in base new; do
    if [[ $side == base ]]; then cmd=("${base_cmd[@]}"); else cmd=("${new_cmd[@]}"); fi
    echo "lock-regression: $side run $i of $runs" >&2
    "${cmd[@]}" loadtest --servers "$SERVERS" "${load[@]}" --json "$out/$side-$i.json" >"$out/$side-$i.txt"
    compare_args+=("--$side" "$out/$side-$i.json")
  done
done

status=0
"${new_cmd[@]}" report compare "${compare_args[@]}" --max-regression "$limits" \
  --markdown "$out/compare.md" --json "$out/compare.json" --html "$out/compare.html" || status=$?
# On GitHub Actions the table lands on the job's summary page.
if [[ -n ${GITHUB_STEP_SUMMARY:-} && -f $out/compare.md ]]; then cat "$out/compare.md" >>"$GITHUB_STEP_SUMMARY"; fi
exit "$status"
