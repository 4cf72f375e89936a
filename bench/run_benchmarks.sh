#!/bin/sh
# Syncscope benchmarks: prints input size, wall time, throughput and peak RSS
# for linking (issue 2), the critical path (issue 3) and the Chakra .et export
# (issue 5), plus the GUI figures when the GUI benchmark is built.
#
#   bench/run_benchmarks.sh [BUILD_DIR] [WORK_DIR]
#
# Inputs are generated (syncscope-tracegen) or scaled from HTA's ns_resolution
# test trace in ../shared/data; nothing here is a pass/fail test. Run it on an
# otherwise idle machine: the figures are wall-clock times.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
WORK=${2:-${TMPDIR:-/tmp}/syncscope-bench}
SHARED=${SYNCSCOPE_SHARED_DATA:-$ROOT/../shared/data}
SYNC="$BUILD/app/syncscope"
GEN="$BUILD/bench/syncscope-tracegen"
mkdir -p "$WORK"
[ -x "$SYNC" ] && [ -x "$GEN" ] || { echo "build first: cmake --build $BUILD --target syncscope-bench" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 2; }

size() { stat -c %s "$@" | awk '{s+=$1} END {print s}'; }

# run LABEL INPUT_BYTES EVENTS COMMAND...: best wall time of 3 runs, its peak RSS
run() {
    label=$1; bytes=$2; events=$3; shift 3
    best=""; rss=""
    for i in 1 2 3; do
        /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$@" >/dev/null 2>"$WORK/stderr.txt" || {
            echo "FAILED: $label" >&2; cat "$WORK/stderr.txt" >&2; return 1; }
        read -r t m < "$WORK/time.txt"
        if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; rss=$m; fi
    done
    awk -v l="$label" -v b="$bytes" -v e="$events" -v t="$best" -v r="$rss" 'BEGIN {
        mb = b / 1e6; rmb = r / 1024;
        printf "%-46s %9.1f MB %10s ev %8.2f s %8.0f MB/s %8.0f MB RSS (%.2fx input)\n",
               l, mb, e, t, mb / t, rmb, rmb / mb }'
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo), $(awk -F: '/model name/ {print $2; exit}' /proc/cpuinfo)"
echo

echo "== Linking a pair, ET+ written (issue 2; reference: 50 MB 15 s / 490 MB, 500 MB 369 s / 3.8 GB)"
for mb in 50 500; do
    [ -f "$WORK/p$mb.kineto.json" ] || "$GEN" --out "$WORK/p$mb" --target-mb $mb > "$WORK/p$mb.gen.txt"
    events=$(awk '/kineto/ {print $2}' "$WORK/p$mb.gen.txt")
    run "link ${mb} MB pair -> ET+" "$(size "$WORK/p$mb.et.json" "$WORK/p$mb.kineto.json")" "$events" \
        "$SYNC" --batch --host "$WORK/p$mb.et.json" --device "$WORK/p$mb.kineto.json" --output "$WORK/p$mb.linked.json"
    run "link ${mb} MB pair -> ET+, --compat chakra" "$(size "$WORK/p$mb.et.json" "$WORK/p$mb.kineto.json")" "$events" \
        "$SYNC" --batch --compat chakra --host "$WORK/p$mb.et.json" --device "$WORK/p$mb.kineto.json" \
        --output "$WORK/p$mb.linked.compat.json"
done
echo

echo "== Critical path of a device trace, whole trace (issue 3; HTA: 216 MB/750k events 27 s / 1.2 GB)"
NS="$SHARED/device_only/hta_ns_resolution.kineto.json.gz"
if [ -f "$NS" ]; then
    for n in 4 11 16; do
        f="$WORK/ns_x$n.kineto.json"
        [ -f "$f" ] || "$GEN" --replicate "$NS" --times $n --out "$f" > "$f.gen.txt"
        events=$(awk '{print $2}' "$f.gen.txt")
        run "critical path, ns_resolution x$n" "$(size "$f")" "$events" \
            "$SYNC" --batch --device "$f" --annotation "" --critical-path "$WORK/cp_x$n.json"
    done
    f="$WORK/ns_x16.kineto.json"
    run "critical path + overlay, ns_resolution x16" "$(size "$f")" "$(awk '{print $2}' "$f.gen.txt")" \
        "$SYNC" --batch --device "$f" --annotation "" --critical-path "$WORK/cp_x16.json" \
        --overlay "$WORK/overlay_x16.json"
else
    echo "(skipped: $NS not found)"
fi
echo

echo "== Chakra protobuf .et straight from a 200 MB pair (issue 5; target <= 3 s)"
[ -f "$WORK/p200.kineto.json" ] || "$GEN" --out "$WORK/p200" --target-mb 200 > "$WORK/p200.gen.txt"
run "200 MB pair -> .et" "$(size "$WORK/p200.et.json" "$WORK/p200.kineto.json")" \
    "$(awk '/kineto/ {print $2}' "$WORK/p200.gen.txt")" \
    "$SYNC" --batch --host "$WORK/p200.et.json" --device "$WORK/p200.kineto.json" --chakra-et "$WORK/p200.et"
# Replay fidelity of that file (issue 21: every step within 5 %): the worst step.
"$SYNC" --batch --host "$WORK/p200.et.json" --device "$WORK/p200.kineto.json" --chakra-et "$WORK/p200.et" \
    --report "$WORK/p200.report.json" --quiet >/dev/null 2>&1 &&
    python3 - "$WORK/p200.report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for o in r["outputs"]:
    if o["kind"] == "chakra_et":
        steps = [w for w in o.get("replay", []) if w["window"] != "overall"]
        if steps:
            w = max(steps, key=lambda w: abs(w["error_pct"]))
            over = sum(1 for s in steps if abs(s["error_pct"]) > 5)
            print(f"  .et replay: {len(steps)} steps, worst {w['window']} {w['error_pct']:+.1f} % "
                  f"({w['replayed_us']:.0f} vs {w['measured_us']:.0f} us), {over} over 5 %")
PY
echo

echo "== SQLite database of the 200 MB pair (issue 24; target: write <= 2x load)"
"$ROOT/bench/sqlite_benchmark.sh" "$BUILD" "$WORK" 200
echo

echo "== Hostile input (issue 11, item 4: was 2.7 s / 1.6 GB): 6,000 launches + 6,000 kernels, one correlation id"
f="$WORK/shared_corr.kineto.json"
awk 'BEGIN {
    printf "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000000,\"args\":{}}"
    for (i = 0; i < 6000; i++)
        printf ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":5,\"args\":{\"correlation\":7}}", 10 + 10 * i
    for (i = 0; i < 6000; i++)
        printf ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":5,\"args\":{\"correlation\":7,\"stream\":7}}", 20 + 10 * i
    print "]}" }' > "$f"
run "critical path, 12,000 rows on one correlation" "$(size "$f")" 12001 \
    "$SYNC" --batch --device "$f" --critical-path "$WORK/cp_shared.json"
echo

if [ -x "$BUILD/bench/syncscope-uibench" ]; then
    echo "== Timeline (issue 4)"
    QT_QPA_PLATFORM=offscreen "$BUILD/bench/syncscope-uibench" "$WORK"
fi
