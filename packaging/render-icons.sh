#!/bin/sh
# Regenerates the committed PNG icons from the scalable SVG (needs rsvg-convert,
# Debian package librsvg2-bin). The build itself never runs this.
set -eu
cd "$(dirname "$0")/.."
ID=io.github.syncscope.Syncscope
SVG=resources/icons/hicolor/scalable/apps/$ID.svg
for s in 16 22 24 32 48 64 128 256 512; do
    mkdir -p "resources/icons/hicolor/${s}x${s}/apps"
    rsvg-convert -w "$s" -h "$s" "$SVG" -o "resources/icons/hicolor/${s}x${s}/apps/$ID.png"
done
