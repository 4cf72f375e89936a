# packaging.install_stage: `cmake --install` into a staging prefix installs every
# file, and the staged binary runs --version, documents its options in the man
# page and finds the installed sample with --batch --sample.
. "$(dirname "$0")/lib.sh"
: "${CMAKE:?}"
d=$(fresh_dir install)
"$CMAKE" --install "$BUILD" --prefix "$d/stage" >"$d/install.log" 2>&1 || {
    cat "$d/install.log"
    fail "cmake --install failed"
}
check_tree "$d/stage"
echo "ok: $d/stage"
