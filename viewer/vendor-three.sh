#!/usr/bin/env bash
# vendor-three.sh: refresh the pinned three.js ES modules under static/vendor/.
#
# The viewer works offline and loads nothing from a CDN, so three.js is
# vendored: build/three.module.js, every module file it imports (three.core.js
# since r172), and the LICENSE. The version is pinned here; bump THREE_VERSION
# and rerun to update. Needs npm (the registry, through its ordinary client).
#
# Usage: viewer/vendor-three.sh [version]
set -euo pipefail

THREE_VERSION="${1:-0.187.0}"
here="$(cd "$(dirname "$0")" && pwd)"
dest="$here/static/vendor"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

(cd "$tmp" && npm pack --silent "three@$THREE_VERSION" >/dev/null)
tar -xzf "$tmp"/three-*.tgz -C "$tmp"
src="$tmp/package/build"

mkdir -p "$dest"
rm -f "$dest"/three.*.js
cp "$src/three.module.js" "$dest/"
# Follow the relative imports of three.module.js (one level is all three uses:
# three.module.js re-exports three.core.js).
for f in $(grep -oE "from '\./[^']+'" "$src/three.module.js" | sed -E "s/from '\.\/(.*)'/\1/" | sort -u); do
	cp "$src/$f" "$dest/"
done
cp "$tmp/package/LICENSE" "$dest/LICENSE"
echo "$THREE_VERSION" > "$dest/VERSION"
echo "vendored three@$THREE_VERSION into $dest:"
ls -l "$dest"
