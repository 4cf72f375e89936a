#!/bin/sh
# What-if speed (issue 15): analyse a pair once, then time what-if evaluations
# on its critical-path graph (reused, not rebuilt). Target: <= 100 ms per
# what-if on the 200 MB pair's step.
#
#   bench/whatif_benchmark.sh [BUILD_DIR] [WORK_DIR] [TARGET_MB]
#
# Uses a pair of about TARGET_MB (default 200) from $SYNCSCOPE_SHARED_DATA when one
# exists, else generates one with syncscope-tracegen --target-mb.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
WORK=${2:-${TMPDIR:-/tmp}/syncscope-bench}
MB=${3:-200}
GEN="$BUILD/bench/syncscope-tracegen"
BENCH="$BUILD/bench/syncscope-whatifbench"
[ -x "$GEN" ] && [ -x "$BENCH" ] || { echo "build first: cmake --build $BUILD --target syncscope-bench" >&2; exit 2; }
mkdir -p "$WORK"
echo "machine: $(nproc) cores, $(awk -F: '/model name/ {print $2; exit}' /proc/cpuinfo)"
[ -f "$WORK/p$MB.kineto.json" ] || "$GEN" --out "$WORK/p$MB" --target-mb "$MB" > "$WORK/p$MB.gen.txt"
echo "== what-if on the ${MB} MB pair's step (generated: syncscope-tracegen --target-mb $MB)"
"$BENCH" "$WORK/p$MB.kineto.json" "$WORK/p$MB.et.json" \
    --rule 'cat=kernel*0.5' --rule 'name~gemm*0.5' --rule 'cat=cpu_op*0.8' --rule 'compute=0' \
    --rule 'sync:cudaStreamSynchronize=drop'
echo "== the same on the whole ${MB} MB trace as one window (stress figure, beyond the target)"
"$BENCH" "$WORK/p$MB.kineto.json" "$WORK/p$MB.et.json" --whole-trace --repeat 3 \
    --rule 'cat=kernel*0.5' --rule 'name~gemm*0.5' --rule 'compute=0'
