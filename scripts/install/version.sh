#!/bin/sh
# The module's version, as MODULE_VERSION and the packages carry it:
# the release below, plus "+g<commit>" when built from a git checkout
# ("+g<commit>.dirty" with uncommitted changes). A source tree without git
# (a DKMS copy under /usr/src) carries the full string in scripts/install/stamp,
# written when the tree is copied out (`make dkms-src`, `make deb`).
#
# usage: scripts/install/version.sh [--release]
release=0.1.0
here=$(cd "$(dirname "$0")" && pwd -P)
root=$(cd "$here/../.." && pwd -P)
if [ "${1:-}" = --release ]; then
	echo "$release"
	exit 0
fi
if [ -f "$here/stamp" ]; then
	cat "$here/stamp"
	exit 0
fi
if command -v git >/dev/null 2>&1 && [ -e "$root/.git" ] &&
	sha=$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null); then
	dirty=
	git -C "$root" diff --quiet HEAD -- 2>/dev/null || dirty=.dirty
	echo "$release+g$sha$dirty"
else
	echo "$release"
fi
