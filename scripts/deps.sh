#!/bin/sh
# Installs the Debian 12 packages Syncscope needs to build and test, only when
# something is missing (idempotent). Run as root, or with sudo available.
# clang and libclang-rt-dev (clang 14: libFuzzer and its sanitizer runtimes)
# build the fuzzers of scripts/fuzz.sh.
set -eu
PACKAGES="cmake ninja-build g++ pkg-config qt6-base-dev libqcustomplot-dev libqcustomplot2.1-qt6 \
nlohmann-json3-dev libsimdjson-dev libre2-dev libprotobuf-dev protobuf-compiler zlib1g-dev libsqlite3-dev sqlite3 xvfb \
desktop-file-utils appstream dpkg-dev file shared-mime-info \
clang libclang-rt-dev libopenmpi-dev openmpi-bin \
pybind11-dev python3-pybind11 python3-pandas python3-dev"
missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    echo "syncscope: installing:$missing" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
