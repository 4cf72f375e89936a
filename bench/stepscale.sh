#!/bin/sh
# Step scaling (issue 22, class 5): every analysis must be O(n log n) in events and
# steps. Generates pairs of N, 2N, ... steps with syncscope-tracegen and prints, per
# command, the best wall time and CPU time of RUNS runs and the ratio time(2N)/time(N)
# (linear: about 2; quadratic: about 4). Commands: one analysis (the pair), --instance
# all (a critical path per step), --diff (two runs, every step's path), and .et replay
# (--inspect --replay) of files made of two-node parent cycles (python3 writes them).
#
#   bench/stepscale.sh [BUILD_DIR] [WORK_DIR]
#   STEPS="250 500 1000 2000" (default)   GRID=1: the sync grid (4 streams, stream waits
#   both ways, blocking copies, .item() loops, CUDA graphs: 52 Stream Wait Event rows a step)
#   ET_NODES="16384 32768 65536" (default; "" for none)   RUNS=2 (default)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
WORK=${2:-${TMPDIR:-/tmp}/syncscope-bench-steps}
STEPS=${STEPS:-250 500 1000 2000}
ET_NODES=${ET_NODES-16384 32768 65536}
RUNS=${RUNS:-2}
SYNC="$BUILD/app/syncscope"
GEN="$BUILD/bench/syncscope-tracegen"
[ -x "$SYNC" ] && [ -x "$GEN" ] || { echo "build first: cmake --build $BUILD --target syncscope syncscope-tracegen" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 2; }
mkdir -p "$WORK"
grid=""
tag=plain
if [ "${GRID:-0}" = 1 ]; then
    grid="--streams 4 --blocking-copies --item-loop 2 --cuda-graphs"
    tag=grid
fi

# measure LABEL COMMAND...: "best wall s, best cpu s" of RUNS runs (exit codes 0 and 6 accepted)
measure() {
    label=$1; shift
    wall=""; cpu=""
    i=0
    while [ $i -lt "$RUNS" ]; do
        i=$((i + 1))
        rc=0
        /usr/bin/time -f "%e %U %S" -o "$WORK/time.txt" "$@" >/dev/null 2>"$WORK/stderr.txt" || rc=$?
        [ $rc -eq 0 ] || [ $rc -eq 6 ] || { echo "FAILED ($rc): $label" >&2; tail -5 "$WORK/stderr.txt" >&2; return 1; }
        read -r w u s < "$WORK/time.txt"
        c=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
        if [ -z "$wall" ] || awk "BEGIN{exit !($w < $wall)}"; then wall=$w; fi
        if [ -z "$cpu" ] || awk "BEGIN{exit !($c < $cpu)}"; then cpu=$c; fi
    done
    echo "$wall $cpu"
}

# table TITLE: reads "N wall cpu" lines on stdin, prints them with the ratios to the previous N
table() {
    echo "== $1"
    awk '{ printf "  %8s   wall %8.2f s   cpu %8.2f s", $1, $2, $3;
           if (NR > 1) printf "   x%.1f size: wall x%.2f  cpu x%.2f", $1 / n, $2 / w, $3 / c;
           printf "\n"; n = $1; w = $2; c = $3 }'
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo); traces: $tag; best of $RUNS runs"
for n in $STEPS; do
    for side in a b; do
        f="$WORK/$tag-$side$n"
        [ -f "$f.kineto.json" ] && continue
        if [ $side = a ]; then
            "$GEN" --out "$f" --steps "$n" --seed 1 $grid >/dev/null
        else
            "$GEN" --out "$f" --steps "$n" --seed 2 --slow-kernel gemm --slow-kernel-scale 1.5 $grid >/dev/null
        fi
    done
done
: > "$WORK/one.txt"; : > "$WORK/all.txt"; : > "$WORK/diff.txt"
for n in $STEPS; do
    a="$WORK/$tag-a$n"; b="$WORK/$tag-b$n"
    r=$(measure "one analysis $n" "$SYNC" --batch --quiet --device "$a.kineto.json" --host "$a.et.json") || exit 1
    echo "$n $r" >> "$WORK/one.txt"
    r=$(measure "--instance all $n" "$SYNC" --batch --quiet --device "$a.kineto.json" --host "$a.et.json" \
        --instance all) || exit 1
    echo "$n $r" >> "$WORK/all.txt"
    r=$(measure "--diff $n" "$SYNC" --batch --quiet --diff "$a.kineto.json,$a.et.json" "$b.kineto.json,$b.et.json") ||
        exit 1
    echo "$n $r" >> "$WORK/diff.txt"
done
table "one analysis of a pair (steps)" < "$WORK/one.txt"
table "--instance all (steps)" < "$WORK/all.txt"
table "--diff of two pairs (steps)" < "$WORK/diff.txt"

if [ -n "$ET_NODES" ] && command -v python3 >/dev/null; then
    : > "$WORK/et.txt"
    for n in $ET_NODES; do
        f="$WORK/cycles$n.et"
        [ -f "$f" ] || python3 - "$n" "$f" <<'EOF'
import sys
def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7f) | 0x80); v >>= 7
    out.append(v); return bytes(out)
def lenf(num, b): return varint(num << 3 | 2) + varint(len(b)) + b
def node(i, parent):  # id, name, COMP_NODE, ctrl_deps [parent], duration 1
    return varint(8) + varint(i) + lenf(2, b"op") + varint(24) + varint(4) + varint(32) + varint(parent) + varint(56) + varint(1)
n, path = int(sys.argv[1]), sys.argv[2]
meta = lenf(1, b"0.0.4")
with open(path, "wb") as f:
    f.write(varint(len(meta)) + meta)
    for k in range(1, n + 1, 2):  # k <-> k+1: two-node parent cycles
        for m in (node(k, k + 1), node(k + 1, k)):
            f.write(varint(len(m)) + m)
EOF
        r=$(measure ".et replay $n" "$SYNC" --batch --inspect "$f" --replay) || exit 1
        echo "$n $r" >> "$WORK/et.txt"
    done
    table ".et replay of two-node parent cycles (nodes)" < "$WORK/et.txt"
fi
