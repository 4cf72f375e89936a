#!/bin/sh
# Runs every test: installs what is missing, builds, then the whole CTest suite
# (no display needed: Qt tests use the offscreen platform).
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
cd build
QT_QPA_PLATFORM=offscreen ctest --output-on-failure --timeout 900 -j "$(nproc 2>/dev/null || echo 2)"
