#!/bin/sh
# The inspector as a new user sees it (issue 41): real traces from ../shared/data at 1280x720,
# 1920x1080 and 1920x1080 at 1.5x (1280x720 logical), light and dark, rendered offscreen on a
# screen of that size. Writes docs/screenshots/<trace>-<size>-<theme>.png and prints each file.
#   scripts/screenshots.sh [BUILD_DIR] [DATA_DIR] [OUT_DIR]
# The traces: a deep-stack H100 training step (TraceLens timesformer, 42,330 Python frames),
# the 8-rank DLRM job (PARAM) and the real 16-rank hang dumps (nvidia-resiliency-ext).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
DATA=${2:-$ROOT/../shared/data}
OUT=${3:-$ROOT/docs/screenshots}
SYNC="$BUILD/app/syncscope"
[ -x "$SYNC" ] || { echo "build first: scripts/build.sh" >&2; exit 2; }
[ -d "$DATA" ] || { echo "no shared data at $DATA" >&2; exit 2; }
mkdir -p "$OUT"
CONF=$(mktemp -d)
trap 'rm -rf "$CONF"' EXIT
screen() { # W H -> a one-screen offscreen platform config
    printf '{"screens":[{"name":"S","x":0,"y":0,"width":%s,"height":%s,"logicalDpi":96,"logicalBaseDpi":96,"dpr":1}]}' \
        "$1" "$2" > "$CONF/$1x$2.json"
    echo "$CONF/$1x$2.json"
}
shot() { # NAME SIZE SCALE THEME ARGS...
    name=$1 size=$2 scale=$3 theme=$4
    shift 4
    w=${size%x*} h=${size#*x}
    label=$size
    [ "$scale" = 1 ] || label="${size}@${scale}x"
    logical_w=$(awk -v a="$w" -v s="$scale" 'BEGIN { printf "%d", a / s }')
    logical_h=$(awk -v a="$h" -v s="$scale" 'BEGIN { printf "%d", a / s }')
    file="$OUT/$name-$label-$theme.png"
    QT_QPA_PLATFORM="offscreen:configfile=$(screen "$w" "$h")" QT_SCALE_FACTOR="$scale" \
        "$SYNC" "$@" --screenshot "$file" --size "${logical_w}x${logical_h}" --theme "$theme" >/dev/null 2>&1 ||
        echo "  (exit $? for $file: see the picture)"
    echo "$file"
}
for theme in light dark; do
    for geometry in "1280x720 1" "1920x1080 1" "1920x1080 1.5"; do
        set -- $geometry
        shot deepstack "$1" "$2" "$theme" "$DATA/device_only/tracelens_h100_timesformer_memory.kineto.json.gz"
        shot job "$1" "$2" "$theme" "$DATA/pairs/param_dlrm_8rank" --rank-order waits
        shot hang "$1" "$2" "$theme" "$DATA/hang/nvrx_16rank/gpu_error_1st"
    done
done
# The README's pictures (default size, light): the bundled sample and the DLRM job.
if [ "$OUT" = "$ROOT/docs/screenshots" ]; then
    QT_QPA_PLATFORM=offscreen "$SYNC" --sample --screenshot "$ROOT/docs/screenshot.png" --size 1600x900 \
        --select aten::item --theme light >/dev/null 2>&1 && echo "$ROOT/docs/screenshot.png"
    QT_QPA_PLATFORM=offscreen "$SYNC" "$DATA/pairs/param_dlrm_8rank" --screenshot "$ROOT/docs/job_screenshot.png" \
        --rank-order waits --select ncclKernel_SendRecv --theme light >/dev/null 2>&1 && echo "$ROOT/docs/job_screenshot.png"
fi
