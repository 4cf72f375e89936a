#!/bin/sh
# Cost of the report's breakdowns (issue 25; target: every breakdown together,
# whole trace and per step, costs at most 10 % of the time of loading the trace).
# Makes the 200 MB generated pair as run_benchmarks.sh does and runs
# `--batch --step all --report` 9 times with the breakdowns and 9 times with
# --no-breakdowns, interleaved. Prints per run the load, link, critical-path and
# total times and the breakdowns' own time (breakdown_s: items taken by the
# main thread after the link and the critical path's thread after it); then the
# medians: the time the breakdowns add after the load (total - load, with minus
# without) and their own thread time, both as % of the load.
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
for i in 1 2 3 4 5 6 7 8 9; do
    for mode in with without; do
        extra=""
        [ "$mode" = without ] && extra="--no-breakdowns"
        "$SYNC" --batch --host "$P.et.json" --device "$P.kineto.json" --step all $extra \
            --report "$WORK/breakdown.$mode.$i.json" --quiet >/dev/null 2>&1 || true
    done
done
python3 - "$WORK" <<'PY'
import json, os, statistics, sys
work = sys.argv[1]
load = lambda m, i: json.load(open(f"{work}/breakdown.{m}.{i}.json"))
with_ = [load("with", i) for i in range(1, 10)]
without = [load("without", i) for i in range(1, 10)]
r0 = with_[0]
steps = len(r0.get("critical_path", {}).get("steps", []))
mb = r0["inputs"]["device"]["bytes"] / 1e6
print(f"{r0['inputs']['device']['events']} Kineto events ({mb:.0f} MB), {steps} steps, {os.cpu_count()} cores")
print("run  breakdowns  load_s  link_s  critical_path_s  total_s  breakdown_s (steps)")
for i in range(9):
    for name, r in (("with", with_[i]), ("without", without[i])):
        t = r["timing"]
        print(f"{i + 1:3}  {name:10}  {t['load_s']:6.3f}  {t['link_s']:6.3f}  {t['critical_path_s']:15.3f}"
              f"  {t['total_s']:7.3f}  {t['breakdown_s']:.3f} ({t['breakdown_steps_s']:.3f})")
med = lambda rs, k: statistics.median(r["timing"][k] for r in rs)
# The load varies most from run to run (the VM), and the breakdowns start after it:
# compare what comes after the load (sync, link, critical path, breakdowns).
after = lambda rs: statistics.median(r["timing"]["total_s"] - r["timing"]["load_s"] for r in rs)
ld = med(with_ + without, "load_s")
added = after(with_) - after(without)
spread = lambda rs: max(r["timing"]["total_s"] - r["timing"]["load_s"] for r in rs) - min(
    r["timing"]["total_s"] - r["timing"]["load_s"] for r in rs)
own = med(with_, "breakdown_s")
print(f"median load {ld:.3f} s; after the load: {after(with_):.3f} s with the breakdowns, {after(without):.3f} s "
      f"without (spread {spread(with_):.3f} / {spread(without):.3f} s)")
print(f"the breakdowns add {added:.3f} s to the run: {100 * added / ld:.1f} % of the load (target <= 10 %); "
      f"their own thread time {own:.3f} s ({100 * own / ld:.1f} % of the load)")
PY
