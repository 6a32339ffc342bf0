#!/bin/sh
# The module's version, as MODULE_VERSION and the packages carry it:
# the release below, plus "+git<N>.g<commit>" when built from a git checkout
# (N commits in its history, so that package versions of later commits sort
# higher; ".dirty" appended with uncommitted changes). A source tree without git
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
	n=$(git -C "$root" rev-list --count HEAD)
	echo "$release+git$n.g$sha$dirty"
else
	echo "$release"
fi
