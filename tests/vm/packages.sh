#!/bin/bash
# Host side of the package case (tests/vm/cases/60-package.sh): `make deb`
# of this commit into build/vm/deb/cur, and the same source packaged as a
# later version (V+upgrade, scripts/deb/build.sh --version) into
# build/vm/deb/next, which the case installs over the first. Built once per
# version: a second run with both present does nothing. A tree with
# uncommitted changes has no package version (scripts/install/dkms-src.sh)
# and fails here.
set -euo pipefail
SRPT_ROOT=$(cd "$(dirname "$0")/../.." && pwd -P)
version=$("$SRPT_ROOT/scripts/install/version.sh")
dir=$SRPT_ROOT/build/vm/deb
cur=$dir/cur/srpt-cxx-dkms_${version}_all.deb
next=$dir/next/srpt-cxx-dkms_${version}+upgrade_all.deb
[ -f "$cur" ] && [ -f "$next" ] && exit 0
rm -rf "$dir"
mkdir -p "$dir"
"$SRPT_ROOT/scripts/deb/build.sh" --out "$dir/cur" --version "$version"
"$SRPT_ROOT/scripts/deb/build.sh" --out "$dir/next" --version "$version+upgrade"
[ -f "$cur" ] && [ -f "$next" ]
