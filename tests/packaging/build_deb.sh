# packaging.deb_build (fixture packaging_deb): cpack -G DEB builds exactly one
# syncscope_<version>_<arch>.deb, in its own directory under the build tree.
. "$(dirname "$0")/lib.sh"
: "${CPACK:?}"
need DPKG_DEB dpkg-deb dpkg
command -v dpkg-shlibdeps >/dev/null 2>&1 || fail "dpkg-shlibdeps not found (Debian package dpkg-dev; run scripts/deps.sh)"
d=$(fresh_dir deb)
(cd "$BUILD" && "$CPACK" -G DEB --config "$BUILD/CPackConfig.cmake" -B "$d") >"$d/cpack.log" 2>&1 || {
    cat "$d/cpack.log"
    fail "cpack -G DEB failed"
}
cat "$d/cpack.log"
set -- "$d"/syncscope_"$SYNCSCOPE_VERSION"_*.deb
[ $# -eq 1 ] && [ -f "$1" ] || fail "expected one syncscope_${SYNCSCOPE_VERSION}_*.deb in $d: $*"
"$DPKG_DEB" --info "$1"
