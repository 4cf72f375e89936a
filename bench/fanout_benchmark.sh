#!/bin/sh
# Correlation fan-outs (issue 40, docs/hardening.md): each shape at N, 2N, 4N, 8N events,
# `syncscope --batch` wall time and peak RSS, and the time ratio per doubling (2.0 is
# linear; the quadratic walks this replaced gave 3.5-4).
#   bench/fanout_benchmark.sh [BUILD] [N]      defaults: build, 10000
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
N=${2:-10000}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for shape in ${SHAPES:-memcpy launches waits streamwaits}; do
    prev=""
    for mult in 1 2 4 8; do
        n=$((N * mult))
        python3 bench/fanout/gen_fanout.py "$shape" "$n" "$WORK/t.json"
        /usr/bin/time -f "%e %M" -o "$WORK/time" "$BUILD/app/syncscope" --batch --quiet --device "$WORK/t.json" \
            --report "$WORK/r.json" >/dev/null 2>&1 || true
        read -r secs kb <<EOF
$(tail -n 1 "$WORK/time")
EOF
        ratio=""
        [ -n "$prev" ] && ratio=$(awk -v a="$secs" -v b="$prev" 'BEGIN { if (b > 0) printf "x%.2f", a / b }')
        printf '%-9s N=%-7s %6.2f s %7d KB %s\n' "$shape" "$n" "$secs" "$kb" "$ratio"
        prev=$secs
    done
done
