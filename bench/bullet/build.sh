#!/usr/bin/env bash
# Builds the Bullet comparison harness (harness.cpp) into
# bench/bullet/bin/bullet-bench, against Debian's libbullet-dev 3.24
# (apt-get install -y libbullet-dev g++ pkg-config). Release flags as a
# game would ship: -O2, SSE2 only (the baseline amd64 netphys is built for).
set -euo pipefail
cd "$(dirname "$0")"
if ! pkg-config --exists bullet; then
  echo "build.sh: libbullet-dev is not installed: apt-get install -y libbullet-dev" >&2
  exit 1
fi
mkdir -p bin
# shellcheck disable=SC2046
g++ -O2 -DNDEBUG -std=c++17 -o bin/bullet-bench harness.cpp $(pkg-config --cflags --libs bullet)
echo "build.sh: built $(pwd)/bin/bullet-bench against Bullet $(pkg-config --modversion bullet)"
