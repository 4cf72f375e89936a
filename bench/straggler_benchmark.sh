#!/bin/sh
# Straggler what-if benchmark (issue 26): a generated data x pipeline parallel job of
# 1,024 ranks (tracegen --study-job, dp 64 x pp 16, 4 microbatches, 3 steps, one slow
# rank), analysed with and without --straggler-whatif. Prints the wall time and peak
# RSS of both runs, the what-if's own time (report straggler_whatif.seconds), the ops
# it simulated and how many timelines. Figures only; nothing here is pass/fail.
#
#   bench/straggler_benchmark.sh [BUILD_DIR] [WORK_DIR] [DP] [PP]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
WORK=${2:-${TMPDIR:-/tmp}/syncscope-stragglerbench}
DP=${3:-64}
PP=${4:-16}
SYNC="$BUILD/app/syncscope"
GEN="$BUILD/bench/syncscope-tracegen"
[ -x "$SYNC" ] && [ -x "$GEN" ] || { echo "build first: cmake --build $BUILD --target syncscope-bench" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 2; }
mkdir -p "$WORK"
JOB="$WORK/job"
rm -rf "$JOB"
"$GEN" --study-job "$JOB" --dp "$DP" --pp "$PP" --microbatches 4 --steps 3 --slow-rank 5 --slow-factor 2 \
    --truth "$WORK/truth.json" >/dev/null
RANKS=$((DP * PP))
BYTES=$(du -sb "$JOB" | cut -f1)
echo "machine: $(nproc) cores; job: $RANKS ranks (dp $DP x pp $PP), $(awk -v b="$BYTES" 'BEGIN {printf "%.0f MB", b / 1e6}') of Kineto traces"

run() { # label, extra args...: appends "wall rss_kb" to WORK/label.times
    label=$1; shift
    /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$SYNC" --batch --job "$JOB" --quiet --no-breakdowns \
        --report "$WORK/$label.json" "$@" >/dev/null 2>"$WORK/stderr.txt" || true
    cat "$WORK/time.txt" >> "$WORK/$label.times"
}
rm -f "$WORK"/*.times
for i in 1 2 3; do # interleaved: the machine's drift hits both alike
    run plain
    run straggler-whatif --straggler-whatif
done
for label in plain straggler-whatif; do
    sort -n "$WORK/$label.times" | awk -v l="$label" 'NR == 2 {printf "%-18s wall %6.2f s (median of 3)   peak RSS %6.0f MB\n", l, $1, $2 / 1024}'
done
/usr/bin/python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
report = json.load(open(f"{work}/straggler-whatif.json"))
w = report["straggler_whatif"]
w["seconds"] = report["timing"]["straggler_whatif_s"]
t = json.load(open(f"{work}/truth.json"))
if not w.get("ok"):
    print("straggler what-if failed:", w.get("error")); sys.exit(0)
print(f"what-if: {w['seconds']:.2f} s for {w['simulations']} timelines of {w['ops']} GPU ops "
      f"({w['ops'] * w['simulations'] / max(w['seconds'], 1e-9) / 1e6:.1f} M op-simulations/s)")
print(f"S {w['slowdown']:.4f} (truth {t['S']:.4f}), M_W {w['M_W']} (truth {t['M_W']}), "
      f"replay error {w['replay_error_pct']} %")
PY
