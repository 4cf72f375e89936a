#!/bin/sh
# Job mode benchmark (issue 12): wall time and peak RSS of `syncscope --batch --job`
# against the single-rank runs it replaces, and the scaling of a job of many small
# ranks. Prints figures; nothing here is a pass/fail test.
#
#   bench/job_benchmark.sh [BUILD_DIR] [WORK_DIR] [SCALE_RANKS...]
#
# 1. 8 ranks x the 50 MB generated pair (syncscope-tracegen --rank R --world-size 8):
#    wall vs (sum of the 8 single-rank times / cores), the issue's target <= 1.3x;
#    peak RSS vs (--jobs x one rank's peak), target <= 1.3x.
# 2. Scale: generated jobs of 8, 64, 256, 1024 small ranks (or SCALE_RANKS): total
#    time, the cross-rank analysis time (report timing.cross_rank_s) and peak RSS.
#    Uses the generator's job mode, assumed to be
#        syncscope-tracegen --job DIR --ranks N --steps S
#    (N ranks with consistent collectives, written as DIR/rankR.et.json and
#    DIR/rankR.kineto.json); when the generator has no --job it falls back to N
#    independent pairs made with --rank R --world-size N (no matched collectives,
#    so the cross-rank figures then measure discovery and bookkeeping only).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
WORK=${2:-${TMPDIR:-/tmp}/syncscope-jobbench}
shift $(( $# > 2 ? 2 : $# ))
SCALE=${*:-8 64 256 1024}
SYNC="$BUILD/app/syncscope"
GEN="$BUILD/bench/syncscope-tracegen"
CORES=$(nproc)
[ -x "$SYNC" ] && [ -x "$GEN" ] || { echo "build first: cmake --build $BUILD --target syncscope-bench" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 2; }
mkdir -p "$WORK"

# measure COMMAND...: sets T (wall s) and M (peak RSS MB) of one run
measure() {
    /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$@" >/dev/null 2>"$WORK/stderr.txt" || {
        echo "FAILED ($?): $*" >&2; tail -5 "$WORK/stderr.txt" >&2; }
    read -r T M < "$WORK/time.txt"
    M=$(awk -v k="$M" 'BEGIN {printf "%.0f", k / 1024}')
}

echo "machine: $CORES cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo)"
echo
echo "== 8 ranks x the 50 MB pair (targets: wall <= 1.3 x sum/cores, RSS <= 1.3 x jobs x one rank)"
JOB="$WORK/job8x50"
mkdir -p "$JOB"
r=0
while [ $r -lt 8 ]; do
    [ -f "$JOB/rank$r.kineto.json" ] ||
        "$GEN" --out "$JOB/rank$r" --target-mb 50 --rank $r --world-size 8 --seed $((r + 1)) >/dev/null
    r=$((r + 1))
done
# Twice: the analysis alone, then with each rank's ET+ written (outputs are fsync'd
# before the rename, so on a slow disk that half measures the disk).
for outputs in none et_plus; do
    echo "  -- outputs: $outputs"
    sum=0; peak=0; r=0
    while [ $r -lt 8 ]; do
        if [ $outputs = none ]; then
            measure "$SYNC" --batch --host "$JOB/rank$r.et.json" --device "$JOB/rank$r.kineto.json"
        else
            measure "$SYNC" --batch --host "$JOB/rank$r.et.json" --device "$JOB/rank$r.kineto.json" \
                --output "$WORK/single.json"
        fi
        printf "  single rank %d: %6.2f s %6d MB\n" $r "$T" "$M"
        sum=$(awk -v a="$sum" -v b="$T" 'BEGIN {print a + b}')
        [ "$M" -gt "$peak" ] && peak=$M
        r=$((r + 1))
    done
    for jobs in 1 $CORES; do
        rm -rf "$WORK/out8"
        if [ $outputs = none ]; then
            measure "$SYNC" --batch --job "$JOB" --jobs "$jobs" --report "$WORK/job8.json"
        else
            measure "$SYNC" --batch --job "$JOB" --jobs "$jobs" --output-dir "$WORK/out8" --report "$WORK/job8.json"
        fi
        awk -v t="$T" -v m="$M" -v s="$sum" -v c="$CORES" -v j="$jobs" -v p="$peak" 'BEGIN {
            printf "  job --jobs %d: %6.2f s (sum of singles %.2f s / %d cores = %.2f s: %.2fx)  %5d MB RSS (%d x %d MB: %.2fx)\n",
                   j, t, s, c, s / c, t / (s / c), m, j, p, m / (j * p) }'
    done
done
echo

echo "== Scale: N small ranks (time should grow about linearly; cross-rank analysis from the report)"
if "$GEN" --job "$WORK/probe" --ranks 2 --steps 1 >/dev/null 2>&1; then mode=job; else mode=pairs; fi
rm -rf "$WORK/probe"
echo "  generator: $([ $mode = job ] && echo "syncscope-tracegen --job" || echo "independent pairs (no --job in this generator)")"
for n in $SCALE; do
    dir="$WORK/scale$n"
    if [ ! -d "$dir" ]; then
        if [ $mode = job ]; then
            "$GEN" --job "$dir" --ranks "$n" --steps 2 >/dev/null
        else
            mkdir -p "$dir"; r=0
            while [ $r -lt "$n" ]; do
                "$GEN" --out "$dir/rank$r" --steps 2 --layers 2 --rank $r --world-size "$n" --seed $((r + 1)) >/dev/null
                r=$((r + 1))
            done
        fi
    fi
    bytes=$(du -sb "$dir" | awk '{print $1}')
    measure "$SYNC" --batch --job "$dir" --report "$WORK/scale$n.json"
    cross=$(sed -n 's/.*"cross_rank_s": *\([0-9.e+-]*\).*/\1/p' "$WORK/scale$n.json" | head -1)
    disc=$(sed -n 's/.*"discovery_s": *\([0-9.e+-]*\).*/\1/p' "$WORK/scale$n.json" | head -1)
    awk -v n="$n" -v b="$bytes" -v t="$T" -v m="$M" -v x="$cross" -v d="$disc" 'BEGIN {
        printf "  %5d ranks %8.1f MB: %7.2f s total (%.2f ms/rank), discovery %.3f s, cross-rank %.4f s, %5d MB RSS\n",
               n, b / 1e6, t, 1000 * t / n, d, x, m }'
done
