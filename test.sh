#!/usr/bin/env bash
# test.sh: the test command for a fresh machine. It installs the two Debian
# packages the tests use when they are missing (qemu-user-static runs the
# arm64 golden-checksum binaries, chromium runs the viewer's and the demo's
# browser tests), then runs `go test ./...` with any arguments given.
#
#   ./test.sh            # everything
#   ./test.sh -short     # extra arguments go to go test
set -euo pipefail
cd "$(dirname "$0")"

need=()
command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
command -v chromium >/dev/null || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
		echo "test.sh: the tests need ${need[*]}, which are missing." >&2
		echo "test.sh: install them with: sudo apt-get install -y --no-install-recommends ${need[*]}" >&2
		echo "test.sh: (this script installs them itself when run as root on Debian or Ubuntu)" >&2
		exit 1
	fi
	echo "test.sh: installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
fi

go test "$@" ./...
