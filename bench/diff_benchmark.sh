#!/bin/sh
# Run-diff benchmark (issue 16): generates an A/B pair of pairs with
# syncscope-tracegen (B: one kernel 1.5x slower and an extra sync per step) and
# prints the time to diff them against the time to load both, from the timing
# line of `syncscope --batch --diff` (the issue asks diff <= 2 x load).
#
#   bench/diff_benchmark.sh [BUILD_DIR] [WORK_DIR] [MB_PER_PAIR]   (default 200 MB)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
WORK=${2:-${TMPDIR:-/tmp}/syncscope-bench-diff}
MB=${3:-200}
SYNC="$BUILD/app/syncscope"
GEN="$BUILD/bench/syncscope-tracegen"
[ -x "$SYNC" ] && [ -x "$GEN" ] || { echo "build first: cmake --build $BUILD --target syncscope-bench" >&2; exit 2; }
mkdir -p "$WORK"
if [ ! -f "$WORK/a$MB.kineto.json" ]; then
    "$GEN" --out "$WORK/a$MB" --target-mb "$MB" --seed 1 >/dev/null
    "$GEN" --out "$WORK/b$MB" --target-mb "$MB" --seed 2 --slow-kernel threshold_kernel_impl \
        --slow-kernel-scale 1.5 --extra-sync >/dev/null
fi
size() { stat -c %s "$@" | awk '{s+=$1} END {printf "%.1f", s/1e6}'; }
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo)"
echo "baseline pair $(size "$WORK/a$MB".*.json) MB, candidate pair $(size "$WORK/b$MB".*.json) MB"
start=$(date +%s.%N)
"$SYNC" --batch --diff "$WORK/a$MB.kineto.json,$WORK/a$MB.et.json" "$WORK/b$MB.kineto.json,$WORK/b$MB.et.json" \
    --diff-report "$WORK/diff$MB.json" >"$WORK/summary.txt" 2>"$WORK/stderr.txt" || {
    cat "$WORK/stderr.txt" >&2; exit 1; }
end=$(date +%s.%N)
grep '^timing:' "$WORK/stderr.txt"
awk -v s="$start" -v e="$end" 'BEGIN { printf "whole command: %.2f s\n", e - s }'
# "timing: load L s, analysis (load included) A s, diff D s (match M s), diff/load R"
sed -n 's/^timing: load \([0-9.]*\) s, analysis (load included) \([0-9.]*\) s, diff \([0-9.]*\) s.*/\1 \2 \3/p' \
    "$WORK/stderr.txt" | awk '{ printf "ratio diff / load both: %.3f   (diff + load) / load: %.3f   (limit 2)\n", $3 / $1, ($1 + $3) / $1 }'
echo "top changes:"
sed -n '/^top changes/,/^$/p' "$WORK/summary.txt" | sed -n 2,6p
