#!/bin/sh
# Quick start: install what is missing, build, and run Syncscope on the bundled
# sample pair. With a display this opens the inspector; without one it runs the
# same pipeline headless and prints the summary.
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -z "${CI:-}" ]; then
    exec build/app/syncscope --sample
fi
mkdir -p build/sample-output
exec build/app/syncscope --batch --sample --instance all \
    --output build/sample-output/sample.linked.json \
    --critical-path build/sample-output/sample.critical_path.json \
    --overlay build/sample-output/sample.overlay.json.gz \
    --report build/sample-output/sample.report.json
