#!/bin/sh
# Hang diagnosis at scale (issue 29): generates RANKS flight recorder dumps of ENTRIES
# entries each (syncscope-tracegen --hang-scale: TP groups of 8 plus the world group,
# each rank's pg_config holding its own groups, the world list as torch's "[0, 1, ...]"
# text; rank RANKS/2+3 never enters its TP group's last all_reduce), once as JSON (what
# dump_json writes: no stacks) and once as torch's pickle (14 stack frames per entry),
# then runs `syncscope --batch --flight-recorder DIR --report FILE --quiet` on each and
# prints the input size, the wall time and peak RSS (GNU time), the report's read and
# analysis times, and checks the root cause against DIR/expected.json. The dumps are
# read from the page cache (just written), as on a machine that holds them.
#
#   bench/hang_benchmark.sh [BUILD_DIR] [WORK_DIR] [RANKS] [ENTRIES]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
WORK=${2:-${TMPDIR:-/tmp}/syncscope-bench}
RANKS=${3:-10000}
ENTRIES=${4:-100}
SYNC="$BUILD/app/syncscope"
GEN="$BUILD/bench/syncscope-tracegen"
[ -x "$SYNC" ] && [ -x "$GEN" ] || { echo "build first: cmake --build $BUILD --target syncscope syncscope-tracegen" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "needs python3 (reads the report)" >&2; exit 2; }
mkdir -p "$WORK"
for FORMAT in json pickle; do
D="$WORK/hang-${RANKS}x${ENTRIES}-$FORMAT"
if [ ! -f "$D/expected.json" ]; then
    rm -rf "$D"
    "$GEN" --hang-scale "$RANKS,$ENTRIES" --out "$D" $([ "$FORMAT" = pickle ] && echo --pickle)
fi
FILES=$(find "$D" -type f -name 'rank*' | wc -l)
BYTES=$(du -sb "$D" | cut -f1)
cat "$D"/rank* > /dev/null # into the page cache
set +e
/usr/bin/time -f '%e %M' -o "$WORK/hang.time" "$SYNC" --batch --flight-recorder "$D" --report "$WORK/hang.report.json" --quiet
RC=$?
set -e
read -r WALL RSS < "$WORK/hang.time"
echo "$FORMAT input: $FILES dumps x $ENTRIES entries, $(awk "BEGIN{printf \"%.1f\", $BYTES/1e6}") MB"
echo "  exit $RC, wall ${WALL} s, peak RSS $(awk "BEGIN{printf \"%.0f\", $RSS/1024}") MiB"
python3 - "$WORK/hang.report.json" "$D/expected.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); e = json.load(open(sys.argv[2]))["expected"][0]
s = r["hang"]["suspects"][0]
t = r.get("timing", {})
print("  read %.2f s, analysis %.2f s (report timing)" % (t.get("read_s", 0), t.get("analysis_s", 0)))
ok = s["pg_id"] == e["pg_id"] and s["kind"] == e["kind"] and s["missing_ranks"] == e["missing_ranks"]
print("  root: pg %s %s missing %s (%s)" % (s["pg_id"], s["kind"], s["missing_ranks"], "as expected" if ok else "EXPECTED %s" % e))
sys.exit(0 if ok else 1)
PY
done
