# packaging.metainfo: appstreamcli validate --no-net --strict accepts the
# metainfo (pedantic notes allowed), and it names the app id, its .desktop file,
# the binary, the MIME types and the project version as the newest release.
. "$(dirname "$0")/lib.sh"
need APPSTREAMCLI appstreamcli appstream
f="$SRC/packaging/$ID.metainfo.xml"
mime="$SRC/packaging/$ID.mime.xml"
[ -f "$f" ] || fail "missing $f"
out=$("$APPSTREAMCLI" validate --no-net --strict "$f" 2>&1) || fail "appstreamcli rejects $f: $out"
printf '%s\n' "$out"
has() { grep -qF "$1" "$f" || fail "metainfo lacks $1"; }
has '<component type="desktop-application">'
has "<id>$ID</id>"
has "<launchable type=\"desktop-id\">$ID.desktop</launchable>"
has '<binary>syncscope</binary>'
has '<project_license>MIT</project_license>'
has '<content_rating type="oars-1.1"'
for t in $(sed -n 's/.*<mime-type type="\([^"]*\)".*/\1/p' "$mime"); do has "<mediatype>$t</mediatype>"; done
newest=$(sed -n 's/.*<release version="\([^"]*\)".*/\1/p' "$f" | head -1)
[ "$newest" = "$SYNCSCOPE_VERSION" ] || fail "newest <release> is '$newest' but the project version is $SYNCSCOPE_VERSION"
echo "ok: $f"
