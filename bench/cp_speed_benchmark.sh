#!/bin/sh
# Critical-path speed against its floor (issue 40, class 11): a generated device trace of
# about 87 MB (4 streams, 12 steps, 450 layers), `syncscope --batch --device D
# --critical-path F --quiet` five times, the best wall time, and its ratio to one
# simdjson parse of the same file on one core (syncscope-jsonfloor; target <= 1.3).
#   bench/cp_speed_benchmark.sh [BUILD_DIR] [WORK_DIR] [LAYERS]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
WORK=${2:-${TMPDIR:-/tmp}/syncscope-bench}
LAYERS=${3:-450}
SYNC="$BUILD/app/syncscope"
GEN="$BUILD/bench/syncscope-tracegen"
FLOOR="$BUILD/bench/syncscope-jsonfloor"
[ -x "$SYNC" ] && [ -x "$GEN" ] && [ -x "$FLOOR" ] || { echo "build first: cmake --build $BUILD --target syncscope-bench" >&2; exit 2; }
mkdir -p "$WORK"
P="$WORK/cpspeed$LAYERS"
[ -f "$P.kineto.json" ] || "$GEN" --out "$P" --streams 4 --steps 12 --layers "$LAYERS" > "$P.gen.txt"
best=""
for i in 1 2 3 4 5; do
    # Nanosecond wall clock around the run (time(1) prints centiseconds).
    s=$(date +%s%N)
    "$SYNC" --batch --quiet --device "$P.kineto.json" --critical-path "$WORK/cpspeed.cp.json" >/dev/null 2>&1
    e=$(date +%s%N)
    t=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.4f", (e - s) / 1e9 }')
    best=$(awk -v a="$t" -v b="$best" 'BEGIN { print (b == "" || a < b) ? a : b }')
done
floor=$("$FLOOR" "$P.kineto.json")
mb=$(stat -c %s "$P.kineto.json" | awk '{ printf "%.1f", $1 / 1e6 }')
awk -v t="$best" -v f="$floor" -v mb="$mb" 'BEGIN {
    printf "device trace %s MB: critical path %.3f s (best of 5), one-core simdjson parse %.3f s, ratio %.2f (target <= 1.3)\n", mb, t, f, t / f }'
