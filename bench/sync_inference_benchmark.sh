#!/bin/sh
# Cost of sync inference and graph-replay handling (issue 28; target: <= 5 % of
# the load time on the 200 MB pair). Runs the same pair with --hta-exact (HTA's
# rules only) and with the default (inference, every launch API, graph replays),
# each 3 times, and prints from the reports' timing: load, sync and
# critical-path seconds, and the default's extra time as a share of the load.
#
#   bench/sync_inference_benchmark.sh [BUILD_DIR] [WORK_DIR] [MB]
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
P="$WORK/sync$MB"
# The pair as torch.profiler writes it by default: no cuda_sync rows, blocking copies.
[ -f "$P.kineto.json" ] || "$GEN" --out "$P" --target-mb "$MB" --no-cuda-sync --blocking-copies --streams 2 \
    > "$P.gen.txt"
bytes=$(stat -c %s "$P.et.json" "$P.kineto.json" | awk '{s+=$1} END {print s}')
for mode in exact default; do
    flag=""
    [ "$mode" = exact ] && flag="--hta-exact"
    for i in 1 2 3; do
        # shellcheck disable=SC2086
        "$SYNC" --batch --host "$P.et.json" --device "$P.kineto.json" --annotation "" $flag \
            --report "$WORK/sync_$mode.$i.json" >/dev/null 2>&1 || true
    done
done
python3 - "$WORK" "$bytes" <<'EOF'
import json, sys
work, size = sys.argv[1], int(sys.argv[2])
def best(mode):
    runs = [json.load(open(f"{work}/sync_{mode}.{i}.json")) for i in (1, 2, 3)]
    t = {k: min(r["timing"][k] for r in runs) for k in ("load_s", "sync_s", "critical_path_s")}
    s = runs[0]["sync"]
    return t, s
ex, sx = best("exact")
de, sd = best("default")
print(f"pair {size / 1e6:.1f} MB; load {de['load_s']:.2f} s ({size / 1e6 / de['load_s']:.0f} MB/s)")
for name, t, s in (("--hta-exact", ex, sx), ("default", de, sd)):
    print(f"  {name:12} sync {t['sync_s']:.3f} s, critical path {t['critical_path_s']:.3f} s, "
          f"{s['edges']} sync edges ({s.get('inferred_edges', 0)} inferred)")
extra = de["sync_s"] - ex["sync_s"]
extra_cp = de["critical_path_s"] - ex["critical_path_s"]
print(f"inference: +{extra:.3f} s = {100 * extra / de['load_s']:.1f} % of the load time (target <= 5 %)")
print(f"critical path with inferred edges and replays: {extra_cp:+.3f} s ({100 * extra_cp / de['load_s']:+.1f} % of the load)")
EOF
