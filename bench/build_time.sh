#!/bin/sh
# The quick start's build time (issue 42): configure a fresh Release tree and build the
# `syncscope` target, as scripts/quickstart.sh does, and print the seconds (apt not included).
#   bench/build_time.sh [WORK_DIR] [TARGET]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-${TMPDIR:-/tmp}/syncscope-buildtime}
TARGET=${2:-syncscope}
rm -rf "$WORK"
start=$(date +%s)
cmake -S "$ROOT" -B "$WORK" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$WORK" --parallel "$(nproc 2>/dev/null || echo 2)" --target "$TARGET" >/dev/null
end=$(date +%s)
echo "build of '$TARGET' from a clean tree: $((end - start)) s on $(nproc 2>/dev/null || echo '?') cores (configure included)"
