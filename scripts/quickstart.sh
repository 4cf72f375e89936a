#!/bin/sh
# Quick start: install what is missing, build, and run Syncscope on the bundled
# sample pair. With a display this opens the inspector; without one it renders
# the inspector to a PNG and runs the same pipeline headless, printing the summary.
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh syncscope   # the main job needs the program alone
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -z "${CI:-}" ]; then
    exec build/app/syncscope --sample
fi
mkdir -p build/sample-output
# No display: render the inspector offscreen to a PNG as well.
build/app/syncscope --sample --screenshot build/sample-output/sample.png --size 1600x900 --select aten::item \
    2>/dev/null && echo "syncscope: the inspector's view of the sample: build/sample-output/sample.png" >&2
exec build/app/syncscope --batch --sample --step all \
    --output build/sample-output/sample.linked.json \
    --sqlite build/sample-output/sample.db \
    --critical-path build/sample-output/sample.critical_path.json \
    --overlay build/sample-output/sample.overlay.json.gz \
    --report build/sample-output/sample.report.json
