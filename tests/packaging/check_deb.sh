# packaging.deb_*: checks on the .deb built by packaging.deb_build.
#   deb_contents  the file list holds the binary, sample, desktop file, metainfo,
#                 MIME package, icons and man page, all under /usr, nothing else in bin
#   deb_control   name, version, section, maintainer, homepage, description; Depends
#                 is exactly the packages owning the binary's NEEDED libraries
#                 (what shlibdeps computes), no build-time packages
#   deb_run       the unpacked binary runs --version and finds the packaged sample
#   deb_apt       `apt-get --simulate install ./syncscope_*.deb` resolves
. "$(dirname "$0")/lib.sh"
need DPKG_DEB dpkg-deb dpkg
set -- "$1" "$WORK"/deb/syncscope_"$SYNCSCOPE_VERSION"_*.deb
what=$1
deb=$2
[ -f "$deb" ] || fail "no package in $WORK/deb (packaging.deb_build must run first)"

case "$what" in
deb_contents)
    list=$("$DPKG_DEB" --contents "$deb" | awk '{print $6}')
    printf '%s\n' "$list"
    required_files | while read -r f; do
        printf '%s\n' "$list" | grep -qxF "./usr/$f" || fail "the package lacks /usr/$f"
    done
    bad=$(printf '%s\n' "$list" | grep -v '^\./$' | grep -v '^\./usr/' || true)
    [ -z "$bad" ] || fail "files outside /usr: $bad"
    bins=$(printf '%s\n' "$list" | grep '^\./usr/bin/.' || true)
    [ "$bins" = "./usr/bin/syncscope" ] || fail "usr/bin should hold only syncscope: $bins"
    "$DPKG_DEB" --contents "$deb" | grep -q '^-rwxr-xr-x root/root .* \./usr/bin/syncscope$' ||
        fail "usr/bin/syncscope is not -rwxr-xr-x root/root"
    ;;
deb_control)
    field() { "$DPKG_DEB" --field "$deb" "$1"; }
    "$DPKG_DEB" --field "$deb"
    [ "$(field Package)" = syncscope ] || fail "Package: $(field Package)"
    [ "$(field Version)" = "$SYNCSCOPE_VERSION" ] || fail "Version: $(field Version)"
    [ "$(field Architecture)" = "$(dpkg --print-architecture)" ] || fail "Architecture: $(field Architecture)"
    [ "$(field Section)" = devel ] || fail "Section: $(field Section)"
    [ -n "$(field Maintainer)" ] || fail "no Maintainer"
    case "$(field Homepage)" in https://*) ;; *) fail "Homepage: $(field Homepage)" ;; esac
    [ "$(field Description | wc -l)" -ge 3 ] || fail "Description has no long text"
    [ "$(field Description | sed -n 2p | sed 's/^ *//')" != "$(field Description | head -1)" ] ||
        fail "the long Description repeats the synopsis"
    deps=$(field Depends | tr ',' '\n' | sed 's/^ *//; s/[ (].*//' | sort -u)
    printf 'Depends names: %s\n' "$(echo $deps)"
    for p in $deps; do
        case "$p" in
        *-dev | cmake | ninja-build | g++* | gcc-[0-9]* | pkg-config | protobuf-compiler | dpkg-dev)
            fail "build-time package in Depends: $p" ;;
        esac
    done
    # Depends must be exactly the packages owning the libraries the packaged
    # binary links (ELF NEEDED), i.e. what dpkg-shlibdeps computes.
    command -v objdump >/dev/null 2>&1 || fail "objdump not found (Debian package binutils)"
    d=$(fresh_dir deb-control)
    "$DPKG_DEB" --extract "$deb" "$d/root"
    bin="$d/root/usr/bin/syncscope"
    resolved=$(ldd "$bin") || fail "ldd $bin failed"
    owners=""
    for so in $(objdump -p "$bin" | awk '$1 == "NEEDED" {print $2}'); do
        path=$(printf '%s\n' "$resolved" | awk -v so="$so" '$1 == so && $2 == "=>" {print $3; exit}
            substr($1, 1, 1) == "/" && substr($1, length($1) - length(so)) == "/" so {print $1; exit}')
        [ -n "$path" ] || fail "$so is not resolved by ldd"
        owner=$(dpkg -S "$path" 2>/dev/null || dpkg -S "/usr$path" 2>/dev/null || dpkg -S "${path#/usr}" 2>/dev/null) ||
            fail "no Debian package owns $path ($so)"
        owners="$owners
$(printf '%s\n' "$owner" | head -1 | sed 's/[:,].*//')"
    done
    owners=$(printf '%s\n' "$owners" | sed '/^$/d' | sort -u)
    printf 'Owners of the NEEDED libraries: %s\n' "$(echo $owners)"
    [ "$deps" = "$owners" ] || fail "Depends ($(echo $deps)) != packages of the linked libraries ($(echo $owners))"
    case " $(echo $deps) " in *" libstdc++6 "*) ;; *) fail "Depends lacks libstdc++6" ;; esac
    if [ "${SYNCSCOPE_GUI:-0}" = 1 ]; then
        for w in libqt6widgets6 libqt6gui6; do
            case " $(echo $deps) " in *" $w "*) ;; *) fail "GUI build but Depends lacks $w (GUI binary not packaged?)" ;; esac
        done
    fi
    ;;
deb_run)
    d=$(fresh_dir deb-run)
    "$DPKG_DEB" --extract "$deb" "$d/root"
    check_tree "$d/root/usr"
    if command -v file >/dev/null 2>&1; then
        file -b "$d/root/usr/bin/syncscope" | grep -q ', stripped' || fail "the packaged binary is not stripped"
    fi
    ;;
deb_apt)
    command -v apt-get >/dev/null 2>&1 || fail "apt-get not found"
    out=$(apt-get --simulate -o Debug::NoLocking=1 install "$deb" 2>&1) || fail "apt cannot install the package: $out"
    printf '%s\n' "$out"
    printf '%s\n' "$out" | grep -Eq '^(Inst syncscope |syncscope is already the newest)' || fail "apt would not install syncscope"
    devs=$(printf '%s\n' "$out" | sed -n 's/^Inst \([^ ]*-dev\) .*/\1/p')
    [ -z "$devs" ] || fail "apt would install build-time packages: $devs"
    ;;
*) fail "unknown check $what" ;;
esac
echo "ok: $what"
