#!/usr/bin/env bash
# Acceptance of `pipelock report compare` against real load tests (issue 41): REPEATS comparisons
# of the same build, RUNS short `pipelock loadtest` runs a side (alternating), must all give no
# regression; then one whose new side shares the CPU with two busy loops must be flagged (exit 1).
# Timing figures: run it where nothing else runs (docs/decisions/0011-instruction-gate.md).
#
#   bash scripts/compare-acceptance.sh      (RUNS=3 REPEATS=10 DURATION=4s LIMITS=… OUT=.tmp/compare-acceptance)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs=${RUNS:-3}
repeats=${REPEATS:-10}
duration=${DURATION:-4s}
limits=${LIMITS:-throughput=10%,p50=15%,p90=20%,p99=30%,p99.9=off}
out=${OUT:-.tmp/compare-acceptance}
mkdir -p "$out"
pipelock=(node --conditions=pipelock-source --import tsx tools/src/cli/main.ts)

# One loadtest run writing $1 (embedded local masters, the same load every time).
run() { "${pipelock[@]}" loadtest --duration "$duration" --warmup 1s --json "$1" >"${1%.json}.txt" 2>&1; }

busy=()
stop_busy() { for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null; done; busy=(); }
trap stop_busy EXIT

# compare NAME BUSY: RUNS runs a side, alternating; the new side's with two busy loops when BUSY=1.
compare() {
  local name=$1 with_busy=$2 i side base=() new=()
  for ((i = 1; i <= runs; i++)); do
    for side in base new; do
      if [[ $side == new && $with_busy == 1 ]]; then
        for _ in 1 2; do node -e 'for (;;);' & busy+=("$!"); done
      fi
      run "$out/$name-$side-$i.json" || { echo "compare-acceptance: loadtest failed, see $out/$name-$side-$i.txt" >&2; exit 2; }
      stop_busy
      if [[ $side == base ]]; then base+=("$out/$name-$side-$i.json"); else new+=("$out/$name-$side-$i.json"); fi
    done
  done
  local IFS=,
  "${pipelock[@]}" report compare "${base[*]}" "${new[*]}" --max-regression "$limits" >"$out/$name-compare.txt" 2>&1
}

false_alarms=0
for ((r = 1; r <= repeats; r++)); do
  compare "same-$r" 0
  status=$?
  echo "same build, comparison $r of $repeats: exit $status ($(head -1 "$out/same-$r-compare.txt"))"
  ((status == 0)) || false_alarms=$((false_alarms + 1))
done
compare busy 1
busy_status=$?
echo "new side beside two busy loops: exit $busy_status ($(head -1 "$out/busy-compare.txt"))"
if ((false_alarms == 0 && busy_status == 1)); then
  echo "compare-acceptance: ok ($repeats same-build comparisons passed, the busy side was flagged)"
  exit 0
fi
echo "compare-acceptance: FAIL ($false_alarms of $repeats same-build comparisons did not pass; busy side exit $busy_status, 1 wanted)" >&2
exit 1
