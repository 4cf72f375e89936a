#!/bin/sh
# Builds the libFuzzer harnesses (fuzz/) in the sanitizer build (./build-asan, clang,
# scripts/sanitizer-build.sh) and runs each for a bounded time on a seed corpus made
# from tests/data. Fails on any finding: the crashing input is left in
# build-asan/findings/ (add it to tests/data/fuzz-regressions/).
#
#   scripts/fuzz.sh                     every harness, FUZZ_SECONDS (60) each
#   FUZZ_SECONDS=3600 scripts/fuzz.sh hostet   one harness for an hour
#   FUZZ_BUDGET=300 scripts/fuzz.sh     every harness, 300 s in all (shared equally)
#
# Environment: FUZZ_SECONDS, FUZZ_BUDGET (total seconds; CI: 240), FUZZ_RSS_MB (2048),
# FUZZ_TIMEOUT (seconds per input, 10),
# FUZZ_ARGS (more libFuzzer flags, e.g. "-jobs=8 -workers=8"). See docs/hardening.md.
set -eu
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
rss="${FUZZ_RSS_MB:-2048}"
timeout="${FUZZ_TIMEOUT:-10}"
harnesses="${*:-kineto hostet chakraet jsonrewrite whatifrule etreplay diff jobsummary flightrecorder cliargs}"
# In CI the run must be reproducible: a fixed seed and a fixed number of inputs
# (FUZZ_RUNS, default 2000; still capped at FUZZ_SECONDS), so a CI verdict does
# not depend on luck or machine speed. Locally the fuzzers explore freely.
limits=""
budget="${FUZZ_BUDGET:-}"
if [ "${CI:-}" = "true" ]; then
    limits="-seed=${FUZZ_SEED:-1} -runs=${FUZZ_RUNS:-2000}"
    budget="${budget:-240}"
fi
# Fuzz time is a budget: with FUZZ_BUDGET the harnesses share it equally
# (at least 10 s each), so adding a harness does not lengthen CI.
if [ -n "$budget" ]; then
    count=$(echo $harnesses | wc -w)
    seconds=$((budget / count))
    [ "$seconds" -ge 10 ] || seconds=10
fi

scripts/sanitizer-build.sh syncscope-fuzzers

status=0
for h in $harnesses; do
    bin="build-asan/fuzz/fuzz_$h"
    seeds="build-asan/fuzz/corpus/$h"          # generated at build time from tests/data
    corpus="build-asan/corpus-work/$h"         # what the fuzzer learns; kept between runs
    findings="build-asan/findings/$h"
    mkdir -p "$corpus" "$findings"
    echo "fuzz: $h for ${seconds}s" >&2
    if ! ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:allocator_may_return_null=1" \
        UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
        "$bin" -max_total_time="$seconds" -rss_limit_mb="$rss" -malloc_limit_mb="$rss" -timeout="$timeout" \
        -print_final_stats=1 $limits ${FUZZ_ARGS:-} \
        -dict="build-asan/fuzz/dict/$h.dict" -artifact_prefix="$findings/" "$corpus" "$seeds" \
        >"build-asan/fuzz-$h.log" 2>&1; then
        echo "fuzz: $h FOUND A PROBLEM (input in $findings/, log build-asan/fuzz-$h.log):" >&2
        tail -n 40 "build-asan/fuzz-$h.log" >&2
        status=1
    else
        grep -E "^(stat::number_of_executed_units|Done)" "build-asan/fuzz-$h.log" >&2 || true
    fi
done
exit "$status"
