#!/bin/sh
# Cost of the report's breakdowns (issue 25; target: every breakdown together,
# whole trace and per step, takes at most 10 % of the time of loading the trace).
# Makes the 200 MB generated pair as run_benchmarks.sh does, runs
# `--batch --step all --report` 3 times and prints, from the reports' timing:
# the load time, breakdown_s (wall clock: the whole trace and the steps run on
# one thread per core), their thread time (breakdown_cpu_s, the per-step part)
# and both ratios to the load.
#
#   bench/breakdown_benchmark.sh [BUILD_DIR] [WORK_DIR] [MB]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
WORK=${2:-${TMPDIR:-/tmp}/syncscope-bench}
MB=${3:-200}
SYNC="$BUILD/app/syncscope"
GEN="$BUILD/bench/syncscope-tracegen"
[ -x "$SYNC" ] && [ -x "$GEN" ] || { echo "build first: cmake --build $BUILD --target syncscope-bench" >&2; exit 2; }
command -v python3 >/dev/null || { echo "needs python3 (reads the JSON reports)" >&2; exit 2; }
mkdir -p "$WORK"
P="$WORK/p$MB"
[ -f "$P.kineto.json" ] || "$GEN" --out "$P" --target-mb "$MB" > "$P.gen.txt"
for i in 1 2 3; do
    "$SYNC" --batch --host "$P.et.json" --device "$P.kineto.json" --step all \
        --report "$WORK/breakdown.$i.json" --quiet >/dev/null 2>&1 || true
done
python3 - "$WORK" <<'PY'
import json, os, sys
work = sys.argv[1]
runs = [json.load(open(f"{work}/breakdown.{i}.json")) for i in (1, 2, 3)]
load = min(r["timing"]["load_s"] for r in runs)
b = min(r["timing"]["breakdown_s"] for r in runs)
cpu = min(r["timing"]["breakdown_cpu_s"] for r in runs)
s = min(r["timing"]["breakdown_steps_cpu_s"] for r in runs)
steps = len(runs[0].get("critical_path", {}).get("steps", []))
mb = runs[0]["inputs"]["device"]["bytes"] / 1e6
print(f"{runs[0]['inputs']['device']['events']} Kineto events ({mb:.0f} MB), {steps} steps, {os.cpu_count()} cores")
print(f"load {load:.3f} s; breakdowns {b:.3f} s wall, {cpu:.3f} s thread time (whole trace {cpu - s:.3f} s, steps {s:.3f} s)")
print(f"breakdown / load = {100 * b / load:.1f} % wall (target <= 10 %), {100 * cpu / load:.1f} % thread time")
PY
