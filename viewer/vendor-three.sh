#!/usr/bin/env bash
# vendor-three.sh: refresh the pinned three.js under static/vendor/.
#
# The viewer works offline and loads nothing from a CDN, so three.js is
# vendored, minified: the npm package ships only unminified modules
# (build/three.module.js re-exports build/three.core.js, 2.1 MB together),
# so this bundles and minifies them into one ES module, three.module.min.js
# (about 0.7 MB), with esbuild at a pinned version, and copies the LICENSE.
# Both versions are pinned here; bump THREE_VERSION and rerun to update.
# Needs npm and npx (the registry, through its ordinary client).
#
# Usage: viewer/vendor-three.sh [three-version]
set -euo pipefail

THREE_VERSION="${1:-0.187.0}"
ESBUILD_VERSION="0.28.2"
here="$(cd "$(dirname "$0")" && pwd)"
dest="$here/static/vendor"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

(cd "$tmp" && npm pack --silent "three@$THREE_VERSION" >/dev/null)
tar -xzf "$tmp"/three-*.tgz -C "$tmp"

mkdir -p "$dest"
rm -f "$dest"/three.*.js
# --bundle follows three.module.js's import of three.core.js; the licence
# comment stays at the end of the file.
(cd "$tmp" && npx --yes "esbuild@$ESBUILD_VERSION" package/build/three.module.js \
	--bundle --format=esm --minify --legal-comments=eof --log-level=warning \
	--outfile="$dest/three.module.min.js")
cp "$tmp/package/LICENSE" "$dest/LICENSE"
echo "$THREE_VERSION (bundled and minified with esbuild $ESBUILD_VERSION)" > "$dest/VERSION"
echo "vendored three@$THREE_VERSION into $dest:"
ls -l "$dest"
