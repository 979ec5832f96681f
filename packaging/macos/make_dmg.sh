#!/bin/sh
# Wrap dist/Desktop RAG.app in dist/desktop-rag-VERSION-macos-ARCH.dmg (hdiutil, macOS only),
# with a link to /Applications beside the app so users drag it there.
#   sh packaging/macos/make_dmg.sh VERSION
set -eu
version=${1:?usage: make_dmg.sh VERSION}
arch=$(uname -m)
app="dist/Desktop RAG.app"
[ -d "$app" ] || { echo "make_dmg.sh: no $app; run packaging/make_bundle.py first" >&2; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp -R "$app" "$stage/"
ln -s /Applications "$stage/Applications"
out="dist/desktop-rag-$version-macos-$arch.dmg"
rm -f "$out"
hdiutil create -volname "Desktop RAG" -srcfolder "$stage" -ov -format UDZO "$out"
echo "$out"
