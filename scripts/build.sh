#!/bin/sh
# Configures (once) and builds Syncscope in ./build (Release, Ninja).
#   scripts/build.sh [TARGET...]    (default: all; the quick start builds syncscope alone)
set -eu
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
if [ $# -eq 0 ]; then
    cmake --build build --parallel "$(nproc 2>/dev/null || echo 2)"
else
    cmake --build build --parallel "$(nproc 2>/dev/null || echo 2)" --target "$@"
fi
