#!/bin/sh
# Runs every test: installs what is missing, builds, then the whole CTest suite
# (no display needed: Qt tests use the offscreen platform).
#
#   scripts/test.sh              Release build in ./build, every test there
#   scripts/test.sh --hardening  every test in the sanitizer build instead, then the fuzzers
#   scripts/test.sh --asan       every test in the sanitizer build (./build-asan, clang, ASan+UBSan)
#   scripts/test.sh --fuzz       also every libFuzzer harness for a bounded time (scripts/fuzz.sh)
#
# With CI=true (as .ci/run is run) --hardening is implied. Each test then runs once,
# under the sanitizers; the Release build runs what only it can check (install and
# .deb, label "packaging"). The time of each phase is printed at the end.
# See docs/hardening.md.
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

started=$(date +%s)
last=$started
times=""
phase() { # records how long the phase that just ended took
    now=$(date +%s)
    times="$times$(printf '  %-44s %5d s' "$1" $((now - last)))
"
    last=$now
}
report() {
    status=$?
    printf 'syncscope: test phases (%s):\n%s  %-44s %5d s\n' \
        "$([ "$status" = 0 ] && echo passed || echo FAILED)" "$times" total $(($(date +%s) - started)) >&2
}
trap report EXIT

scripts/deps.sh
phase "dependencies"
scripts/build.sh
phase "Release build (the product)"

if [ "$asan" = 0 ]; then
    cmake --build build --parallel "$jobs" --target syncscope-tests
    phase "Release build (tests)"
    (cd build && QT_QPA_PLATFORM=offscreen ctest --output-on-failure --timeout 900 -j "$jobs")
    phase "Release: every test"
else
    # The Python module is not built under the sanitizers (an ASan extension cannot be
    # loaded into Debian's python3): its tests run here, on the Release build (python.straggler
    # generates its job with the trace generator, a test tool outside the product).
    cmake --build build --parallel "$jobs" --target syncscope-tracegen
    (cd build && QT_QPA_PLATFORM=offscreen ctest --output-on-failure --timeout 900 -j "$jobs" -L 'packaging|python')
    phase "Release: packaging and Python tests"
    # Every other suite, the GUI's included, under AddressSanitizer + UBSan.
    targets="all syncscope-tests"
    [ "$fuzz" = 1 ] && targets="$targets syncscope-fuzzers"
    # shellcheck disable=SC2086
    scripts/sanitizer-build.sh $targets
    phase "sanitizer build (product, tests, fuzzers)"
    supp="$(pwd)/tests/sanitizers"
    (cd build-asan && QT_QPA_PLATFORM=offscreen \
        ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1" \
        UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$supp/ubsan.supp" \
        LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0" \
        ctest --output-on-failure --timeout 1800 -j "$jobs" -LE 'packaging|python')
    phase "sanitizers: every test"
fi

if [ "$fuzz" = 1 ]; then
    scripts/fuzz.sh
    phase "fuzzers"
fi
