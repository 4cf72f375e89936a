#!/bin/sh
# SQLite export speed (issue 24; target: writing the database of the 200 MB
# generated pair takes at most 2x the time of loading it). Makes the pair as
# run_benchmarks.sh does, runs `--batch --sqlite` 3 times and prints, from the
# best run's report: the load time, the database's write time (the report's
# outputs[].write_s), their ratio, MB/s of input and the database's size.
#
#   bench/sqlite_benchmark.sh [BUILD_DIR] [WORK_DIR] [MB]
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
bytes=$(stat -c %s "$P.et.json" "$P.kineto.json" | awk '{s+=$1} END {print s}')
for i in 1 2 3; do
    rm -f "$WORK/p$MB.db"
    "$SYNC" --batch --host "$P.et.json" --device "$P.kineto.json" --sqlite "$WORK/p$MB.db" \
        --report "$WORK/sqlite.$i.json" --quiet >/dev/null 2>&1 || true
done
python3 - "$WORK" "$bytes" <<'PY'
import json, sys
work, size = sys.argv[1], int(sys.argv[2])
runs = [json.load(open(f"{work}/sqlite.{i}.json")) for i in (1, 2, 3)]
def write_s(r):
    return next(o["write_s"] for o in r["outputs"] if o["kind"] == "sqlite")
best = min(runs, key=write_s)
load = min(r["timing"]["load_s"] for r in runs)
w = write_s(best)
db = next(o for o in best["outputs"] if o["kind"] == "sqlite")
print(f"pair {size / 1e6:.1f} MB ({best['inputs']['device']['events']} Kineto events, "
      f"{best['inputs']['host']['nodes']} host nodes)")
print(f"load {load:.3f} s ({size / 1e6 / load:.0f} MB/s); database write {w:.3f} s "
      f"({size / 1e6 / w:.0f} MB/s of input, {db['bytes'] / 1e6:.1f} MB database)")
print(f"write / load = {w / load:.2f} (target <= 2)")
PY
