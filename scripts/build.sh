#!/bin/sh
# Configures (once) and builds Syncscope in ./build (Release, Ninja).
set -eu
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build build --parallel "$(nproc 2>/dev/null || echo 2)"
