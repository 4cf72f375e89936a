#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# External check of Syncscope's straggler what-if against ByteDance's study
# ("Understanding Stragglers in Large Model Training Using What-if Analysis").
#   bench/straggler/run_study_check.sh [STUDY_REPO] [WORK_DIR] [JOBS...]
# STUDY_REPO: the study's artifact, a work tree or a bare git dir
#   (default /work/.mirror/ByteDance-Seed+StragglerAnalysis/repo).
# WORK_DIR: scratch (default /tmp/syncscope-study-check); about 0.5 GB for the three jobs.
# JOBS: default "ST AR SE". Needs node + npm (hyparquet is installed under WORK_DIR/npm),
# python3 with pandas, and build/app/syncscope. Skips (exit 0) when the study or node is absent.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
STUDY="${1:-/work/.mirror/ByteDance-Seed+StragglerAnalysis/repo}"
WORK="${2:-/tmp/syncscope-study-check}"
shift $(( $# > 2 ? 2 : $# )) || true
JOBS=("$@"); [ ${#JOBS[@]} -eq 0 ] && JOBS=(ST AR SE)
PY="${PYTHON:-/usr/bin/python3}"
SYNCSCOPE="${SYNCSCOPE:-$ROOT/build/app/syncscope}"

if [ ! -e "$STUDY" ]; then echo "skip: study artifact not found at $STUDY"; exit 0; fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then echo "skip: node/npm not found"; exit 0; fi
if [ ! -x "$SYNCSCOPE" ]; then echo "skip: $SYNCSCOPE not built"; exit 0; fi
mkdir -p "$WORK"
# The study as a work tree (a bare mirror is exported with git archive).
if [ -d "$STUDY/analyzer" ]; then SRC="$STUDY"; else
    SRC="$WORK/study"; rm -rf "$SRC"; mkdir -p "$SRC"
    git -C "$STUDY" archive HEAD | tar -x -C "$SRC"
fi
if [ ! -d "$WORK/npm/node_modules/hyparquet" ]; then
    mkdir -p "$WORK/npm"; (cd "$WORK/npm" && npm init -y >/dev/null && npm i hyparquet >/dev/null)
fi
cp "$HERE/dump_parquet.mjs" "$WORK/npm/"

for j in "${JOBS[@]}"; do
    echo "== $j"
    node "$WORK/npm/dump_parquet.mjs" "$SRC/data/trace-$j.parquet" "$WORK/trace-$j.json"
    # The study's own simulator: published S reproduced, S with the launch delays kept, and
    # its no-launch-delay timeline (what its S is measured against).
    "$PY" "$HERE/study_reference.py" --study "$SRC" --trace-json "$WORK/trace-$j.json" \
        --meta "$SRC/data/meta-$j.yaml" --out "$WORK/$j.studyref.json" --dump-nodelay "$WORK/nodelay-$j.json"
    for tag in "" "-nodelay"; do
        in="$WORK/trace-$j.json"; [ -n "$tag" ] && in="$WORK/nodelay-$j.json"
        rm -rf "$WORK/$j$tag"
        "$PY" "$HERE/study_to_kineto.py" --study "$SRC" --trace-json "$in" --meta "$SRC/data/meta-$j.yaml" \
            --out "$WORK/$j$tag"
        par=$("$PY" -c "import json;c=json.load(open('$WORK/$j$tag.conversion.json'));print('dp=%d,pp=%d,tp=1'%(c['dp'],c['pp']))")
        "$SYNCSCOPE" --batch --job "$WORK/$j$tag" --straggler-whatif --parallelism "$par" --clocks trust \
            --report "$WORK/$j$tag.report.json" > "$WORK/$j$tag.log" 2>&1 || echo "syncscope exit $? (see $WORK/$j$tag.log)"
        grep -A5 "Straggler what-if" "$WORK/$j$tag.log" || true
    done
done
"$PY" "$HERE/compare.py" "$WORK" "$SRC/data" "${JOBS[@]}" | tee "$WORK/comparison.md"
