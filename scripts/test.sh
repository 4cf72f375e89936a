#!/bin/sh
# Runs every test: installs what is missing, builds, then the whole CTest suite
# (no display needed: Qt tests use the offscreen platform).
#
#   scripts/test.sh              Release build in ./build, every test
#   scripts/test.sh --hardening  also the sanitizer build and the fuzzers (below)
#   scripts/test.sh --asan       also the whole suite under ASan+UBSan (./build-asan)
#   scripts/test.sh --fuzz       also every libFuzzer harness for a bounded time (scripts/fuzz.sh)
#
# With CI=true (as .ci/run is run) --hardening is implied. See docs/hardening.md.
set -eu
cd "$(dirname "$0")/.."
asan=0
fuzz=0
[ "${CI:-}" = "true" ] && asan=1 && fuzz=1
for arg in "$@"; do
    case "$arg" in
    --hardening) asan=1; fuzz=1 ;;
    --asan) asan=1 ;;
    --fuzz) fuzz=1 ;;
    *) echo "usage: scripts/test.sh [--hardening|--asan|--fuzz]" >&2; exit 2 ;;
    esac
done
jobs="$(nproc 2>/dev/null || echo 2)"

scripts/deps.sh
scripts/build.sh
(cd build && QT_QPA_PLATFORM=offscreen ctest --output-on-failure --timeout 900 -j "$jobs")

if [ "$asan" = 1 ]; then
    # Every suite, the GUI's included, under AddressSanitizer + UndefinedBehaviorSanitizer.
    # The packaging tests check the Release install and .deb, which says nothing here.
    if [ ! -f build-asan/build.ninja ]; then
        cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSYNCSCOPE_SANITIZE=ON
    fi
    cmake --build build-asan --parallel "$jobs"
    supp="$(pwd)/tests/sanitizers"
    (cd build-asan && QT_QPA_PLATFORM=offscreen \
        ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1" \
        UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$supp/ubsan.supp" \
        LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0" \
        ctest --output-on-failure --timeout 1800 -j "$jobs" -LE packaging)
fi

if [ "$fuzz" = 1 ]; then
    scripts/fuzz.sh
fi
