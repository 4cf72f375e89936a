#!/bin/sh
# Configures (once) and builds the one sanitizer build, ./build-asan: clang,
# AddressSanitizer + UndefinedBehaviorSanitizer, coverage-instrumented so that the
# same objects serve the test suite and the libFuzzer harnesses (docs/hardening.md).
#
#   scripts/sanitizer-build.sh [TARGET...]     default: all syncscope-tests syncscope-fuzzers
set -eu
cd "$(dirname "$0")/.."
# A build-asan from before the one-build layout (gcc) is replaced, not reused.
if [ -f build-asan/CMakeCache.txt ] && ! grep -q "^SYNCSCOPE_SANITIZE_FUZZERS:BOOL=ON" build-asan/CMakeCache.txt; then
    echo "syncscope: build-asan was configured without clang fuzzers; reconfiguring it" >&2
    rm -rf build-asan
fi
if [ ! -f build-asan/build.ninja ]; then
    # -O1 and line tables only: sanitizer reports keep file:line, and the build
    # costs about what the Release one does (-O2 -g took twice as long).
    CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" -DSYNCSCOPE_SANITIZE=ON
fi
[ $# -gt 0 ] || set -- all syncscope-tests syncscope-fuzzers
cmake --build build-asan --parallel "$(nproc 2>/dev/null || echo 2)" --target "$@"
