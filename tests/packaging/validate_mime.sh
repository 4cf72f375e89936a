# packaging.mime: update-mime-database compiles the MIME package without a word,
# the trace types get their globs and parents, and the bundled sample files match.
. "$(dirname "$0")/lib.sh"
need UPDATE_MIME_DATABASE update-mime-database shared-mime-info
d=$(fresh_dir mime)
mkdir -p "$d/mime/packages"
cp "$SRC/packaging/$ID.mime.xml" "$d/mime/packages/$ID.xml"
out=$(XDG_DATA_HOME="$d" XDG_DATA_DIRS="$d" "$UPDATE_MIME_DATABASE" "$d/mime" 2>&1) || fail "update-mime-database rejects the package: $out"
[ -z "$out" ] || fail "update-mime-database warns: $out"
expect() { grep -qxF "$2" "$d/mime/$1" || fail "$1 lacks '$2'"; }
expect subclasses "application/x-pytorch-kineto-trace application/json"
expect subclasses "application/x-pytorch-kineto-trace-gzip application/gzip"
expect subclasses "application/x-pytorch-execution-trace application/json"
expect subclasses "application/x-pytorch-execution-trace-gzip application/gzip"
for g in "kineto-trace:*.pt.trace.json" "kineto-trace-gzip:*.pt.trace.json.gz" "kineto-trace:*.kineto.json" \
         "kineto-trace-gzip:*.kineto.json.gz" "execution-trace:*.et.json" "execution-trace-gzip:*.et.json.gz"; do
    awk -F: -v t="application/x-pytorch-${g%%:*}" -v p="${g#*:}" '$2 == t && $3 == p {f = 1} END {exit !f}' \
        "$d/mime/globs2" || fail "globs2 lacks application/x-pytorch-$g"
done
# Every shipped sample trace must be recognised by one of the declared globs.
globs=$(sed -n 's/.*<glob pattern="\([^"]*\)".*/\1/p' "$SRC/packaging/$ID.mime.xml")
n=0
for s in "$SRC"/resources/sample/*.json.gz "$SRC"/resources/sample/real/*.json.gz; do
    [ -f "$s" ] || continue
    b=$(basename "$s")
    hit=""
    set -f
    for g in $globs; do
        # shellcheck disable=SC2254
        case "$b" in $g) hit=$g ;; esac
    done
    set +f
    [ -n "$hit" ] || fail "no MIME glob matches the sample $b"
    n=$((n + 1))
done
[ "$n" -ge 4 ] || fail "expected at least 4 sample traces, found $n"
echo "ok: $d/mime"
