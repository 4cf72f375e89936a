#!/bin/sh
# Builds the libFuzzer harnesses (fuzz/, clang, ./build-fuzz) and runs each for a
# bounded time on a seed corpus made from tests/data. Fails on any finding: the
# crashing input is left in build-fuzz/findings/ (add it to tests/data/fuzz-regressions/).
#
#   scripts/fuzz.sh                     every harness, FUZZ_SECONDS (60) each
#   FUZZ_SECONDS=3600 scripts/fuzz.sh hostet   one harness for an hour
#
# Environment: FUZZ_SECONDS, FUZZ_RSS_MB (2048), FUZZ_TIMEOUT (seconds per input, 10),
# FUZZ_ARGS (more libFuzzer flags, e.g. "-jobs=8 -workers=8"). See docs/hardening.md.
set -eu
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
rss="${FUZZ_RSS_MB:-2048}"
timeout="${FUZZ_TIMEOUT:-10}"
harnesses="${*:-kineto hostet chakraet jsonrewrite whatifrule}"
# In CI the run must be reproducible: a fixed seed and a fixed number of inputs
# (FUZZ_RUNS, default 2000; still capped at FUZZ_SECONDS), so a CI verdict does
# not depend on luck or machine speed. Locally the fuzzers explore freely.
limits=""
if [ "${CI:-}" = "true" ]; then
    limits="-seed=${FUZZ_SEED:-1} -runs=${FUZZ_RUNS:-2000}"
fi

if [ ! -f build-fuzz/build.ninja ]; then
    CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSYNCSCOPE_FUZZ=ON
fi
cmake --build build-fuzz --parallel "$(nproc 2>/dev/null || echo 2)"

status=0
for h in $harnesses; do
    bin="build-fuzz/fuzz/fuzz_$h"
    seeds="build-fuzz/fuzz/corpus/$h"          # generated at build time from tests/data
    corpus="build-fuzz/corpus-work/$h"         # what the fuzzer learns; kept between runs
    findings="build-fuzz/findings/$h"
    mkdir -p "$corpus" "$findings"
    echo "fuzz: $h for ${seconds}s" >&2
    if ! ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:allocator_may_return_null=1" \
        UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
        "$bin" -max_total_time="$seconds" -rss_limit_mb="$rss" -malloc_limit_mb="$rss" -timeout="$timeout" \
        -print_final_stats=1 $limits ${FUZZ_ARGS:-} \
        -dict="build-fuzz/fuzz/dict/$h.dict" -artifact_prefix="$findings/" "$corpus" "$seeds" \
        >"build-fuzz/fuzz-$h.log" 2>&1; then
        echo "fuzz: $h FOUND A PROBLEM (input in $findings/, log build-fuzz/fuzz-$h.log):" >&2
        tail -n 40 "build-fuzz/fuzz-$h.log" >&2
        status=1
    else
        grep -E "^(stat::number_of_executed_units|Done)" "build-fuzz/fuzz-$h.log" >&2 || true
    fi
done
exit "$status"
