# Shared helpers for the packaging checks (sourced; POSIX sh). The environment
# comes from tests/packaging/CMakeLists.txt.
set -eu
: "${SYNCSCOPE_APP_ID:?}" "${SYNCSCOPE_VERSION:?}" "${SRC:?}" "${BUILD:?}" "${WORK:?}"
ID=$SYNCSCOPE_APP_ID
unset SYNCSCOPE_SAMPLE_DIR # the installed binary must find its sample by itself
export QT_QPA_PLATFORM=offscreen

fail() {
    printf 'FAIL: %s\n' "$*" >&2
    exit 1
}

# need VAR tool package: the tool found at configure time, or fail with a hint.
need() {
    eval "_path=\${$1:-}"
    case "$_path" in
    "" | *NOTFOUND) fail "$2 not found (Debian package $3; run scripts/deps.sh, then re-run cmake)" ;;
    esac
    [ -x "$_path" ] || fail "$2 at '$_path' is not executable"
}

# fresh_dir NAME: an empty directory under $WORK, absolute and without symlinks.
fresh_dir() {
    rm -rf "${WORK:?}/$1"
    mkdir -p "$WORK/$1"
    (cd "$WORK/$1" && pwd -P)
}

# The paths (relative to the prefix) every install must contain.
required_files() {
    cat <<LIST
bin/syncscope
share/applications/$ID.desktop
share/metainfo/$ID.metainfo.xml
share/mime/packages/$ID.xml
share/icons/hicolor/scalable/apps/$ID.svg
LIST
    for s in 16 22 24 32 48 64 128 256 512; do
        echo "share/icons/hicolor/${s}x${s}/apps/$ID.png"
    done
    cat <<LIST
share/man/man1/syncscope.1.gz
share/syncscope/sample/sample.et.json.gz
share/syncscope/sample/sample.kineto.json.gz
share/syncscope/sample/README.md
share/syncscope/sample/real/simple_add.et.json.gz
share/syncscope/sample/real/simple_add.kineto.json.gz
share/syncscope/sample/real/LICENSE.HolisticTraceAnalysis.txt
share/syncscope/sample/hang/nccl_trace_rank_0
share/syncscope/sample/hang/nccl_trace_rank_15
share/doc/syncscope/copyright
share/doc/syncscope/changelog.gz
LIST
}

# check_tree PREFIX: required files present, the binary runs --version, its man
# page documents every --help option, and `--batch --sample` uses the sample
# installed under PREFIX (not the source tree).
check_tree() {
    _p=$1
    required_files | while read -r f; do
        [ -f "$_p/$f" ] || fail "not installed: $f (under $_p)"
    done
    [ -x "$_p/bin/syncscope" ] || fail "$_p/bin/syncscope is not executable"
    _v=$(cd / && "$_p/bin/syncscope" --version) || fail "syncscope --version failed"
    [ "$_v" = "syncscope $SYNCSCOPE_VERSION" ] || fail "--version printed '$_v', want 'syncscope $SYNCSCOPE_VERSION'"
    _help=$("$_p/bin/syncscope" --help) || fail "syncscope --help failed"
    _man=$(gzip -dc "$_p/share/man/man1/syncscope.1.gz") || fail "the man page is not gzip"
    printf '%s\n' "$_man" | grep -q '^\.TH SYNCSCOPE 1 .*syncscope '"$SYNCSCOPE_VERSION" ||
        fail "the man page has no '.TH SYNCSCOPE 1' header for version $SYNCSCOPE_VERSION"
    _opts=$(printf '%s\n' "$_help" | sed -n 's/^  \(--[a-z0-9-]*\).*/\1/p')
    [ "$(printf '%s\n' "$_opts" | wc -l)" -ge 10 ] || fail "--help lists too few options: $_opts"
    for o in $_opts; do
        _e=$(printf '%s' "$o" | sed 's/-/\\-/g')
        printf '%s\n' "$_man" | grep -qF ".B $_e" || fail "the man page does not document $o"
    done
    if command -v groff >/dev/null 2>&1; then
        _w=$(printf '%s\n' "$_man" | groff -man -Tutf8 -ww -z 2>&1) || fail "groff rejects the man page: $_w"
        [ -z "$_w" ] || fail "groff warns about the man page: $_w"
    fi
    _r=$(mktemp -d "$WORK/run.XXXXXX")
    (cd "$_r" && "$_p/bin/syncscope" --batch --sample --quiet --report "$_r/report.json") ||
        fail "syncscope --batch --sample failed from $_p"
    grep -qF "\"$_p/share/syncscope/sample/sample.et.json.gz\"" "$_r/report.json" ||
        fail "--batch --sample did not use the sample installed under $_p: $(grep -o '"path": *"[^"]*"' "$_r/report.json" | head -2)"
    rm -rf "$_r"
    # The Python module (when built): installed into Debian's dist-packages path, and
    # importable from there with Debian's python3 (pandas), loading the installed sample.
    if [ "${SYNCSCOPE_PYTHON:-0}" = 1 ]; then
        _py="$_p/lib/python3/dist-packages"
        [ -f "$_py/syncscope/__init__.py" ] || fail "not installed: lib/python3/dist-packages/syncscope/__init__.py"
        ls "$_py"/syncscope/_syncscope*.so >/dev/null 2>&1 || fail "not installed: the _syncscope extension"
        (cd / && PYTHONPATH="$_py" /usr/bin/python3 -c "import sys, syncscope
assert syncscope.__file__.startswith(sys.argv[1]), syncscope.__file__
t = syncscope.load(sys.argv[2] + '/sample.et.json.gz', sys.argv[2] + '/sample.kineto.json.gz')
assert len(t.events()) > 0 and t.report()['exit_code'] == 0" "$_py" "$_p/share/syncscope/sample") ||
            fail "the installed Python module does not load the installed sample"
    fi
}
