# packaging.desktop_file: desktop-file-validate accepts the entry (no errors, no
# warnings) and it uses the app id, opens files, lists every trace MIME type and
# has the Open-pair action on a flag that syncscope accepts.
. "$(dirname "$0")/lib.sh"
need DESKTOP_FILE_VALIDATE desktop-file-validate desktop-file-utils
f="$SRC/packaging/$ID.desktop"
mime="$SRC/packaging/$ID.mime.xml"
[ -f "$f" ] || fail "missing $f"
out=$("$DESKTOP_FILE_VALIDATE" "$f" 2>&1) || fail "desktop-file-validate rejects $f: $out"
[ -z "$out" ] || printf '%s\n' "$out"
if printf '%s\n' "$out" | grep -Eq ': (error|warning): '; then fail "desktop-file-validate warns"; fi

# key GROUP KEY: the value of KEY in [GROUP]
key() { awk -v g="[$1]" -v k="$2" '/^\[/{in_g=($0==g)} in_g && index($0, k"=")==1 {print substr($0, length(k)+2); exit}' "$f"; }
[ "$(key 'Desktop Entry' Icon)" = "$ID" ] || fail "Icon is '$(key 'Desktop Entry' Icon)', want $ID"
[ "$(key 'Desktop Entry' Exec)" = "syncscope %F" ] || fail "Exec is '$(key 'Desktop Entry' Exec)'"
for c in Development Profiling; do
    case ";$(key 'Desktop Entry' Categories)" in *";$c;"*) ;; *) fail "Categories lack $c" ;; esac
done
types=$(key 'Desktop Entry' MimeType)
for t in application/json application/gzip $(sed -n 's/.*<mime-type type="\([^"]*\)".*/\1/p' "$mime"); do
    case ";$types" in *";$t;"*) ;; *) fail "MimeType lacks $t" ;; esac
done
case ";$(key 'Desktop Entry' Actions)" in *";open-pair;"*) ;; *) fail "no open-pair action" ;; esac
[ -n "$(key 'Desktop Action open-pair' Name)" ] || fail "the open-pair action has no Name"
[ "$(key 'Desktop Action open-pair' Exec)" = "syncscope --open-pair" ] || fail "open-pair Exec is '$(key 'Desktop Action open-pair' Exec)'"
"$BUILD/app/syncscope" --help | grep -q '^  --open-pair ' || fail "syncscope --help has no --open-pair"
echo "ok: $f"
