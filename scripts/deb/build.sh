#!/bin/sh
# `make deb`: srpt-cxx-dkms_<version>_all.deb from the current commit, with
# Debian's DKMS helper (dh-dkms), then lintian on it. The package tree is
# scripts/install/dkms-src.sh's copy of the source plus scripts/deb/debian/;
# the changelog is written from the version and the commit.
#
# usage: scripts/deb/build.sh [--version V] [--out DIR]
#   (prints the .deb's path as its last line)
# --version: the package (and the module it builds) claims V instead of the
# commit's version; only for tests, which need an upgrade (tests/vm case 60).
# --out: where to build (default build/deb; emptied first).
set -eu
here=$(cd "$(dirname "$0")" && pwd -P)
root=$(cd "$here/../.." && pwd -P)
version= out=$root/build/deb
while [ $# -gt 0 ]; do
	case $1 in
	--version) version=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) echo "usage: scripts/deb/build.sh [--version V] [--out DIR]" >&2; exit 2 ;;
	esac
done
"$root/scripts/install-deps.sh" deb
version=${version:-$("$root/scripts/install/version.sh")}
tree=$out/srpt-cxx-$version
rm -rf "$out"
mkdir -p "$out"
"$root/scripts/install/dkms-src.sh" "$tree" "$version"
cp -r "$here/debian" "$tree/debian"
mv "$tree/dkms.conf" "$tree/debian/srpt-cxx-dkms.dkms"
commit=$(git -C "$root" rev-parse HEAD)
{
	echo "srpt-cxx ($version) unstable; urgency=medium"
	echo
	echo "  * Built from commit $commit."
	echo
	echo " -- srpt-cxx developers <srpt-cxx@lists.example.org>  $(git -C "$root" log -1 --format=%aD)"
} >"$tree/debian/changelog"
(cd "$tree" && dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1 ||
	{ tail -n 30 "$out/build.log"; echo "deb: dpkg-buildpackage failed (log: $out/build.log)" >&2; exit 1; }
deb=$out/srpt-cxx-dkms_${version}_all.deb
[ -f "$deb" ] || { echo "deb: $deb was not made" >&2; exit 1; }
# Each tag lintian may still report is explained in scripts/deb/lintian.md;
# anything else fails the build.
lintian --fail-on warning,error "$deb" | tee "$out/lintian.log"
echo "$deb"
