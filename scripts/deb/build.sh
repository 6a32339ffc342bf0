#!/bin/sh
# `make deb`: srpt-cxx-dkms_<version>_all.deb from the current commit, with
# Debian's DKMS helper (dh-dkms), then lintian on it. The package tree is
# scripts/install/dkms-src.sh's copy of the source plus scripts/deb/debian/;
# the changelog is written from the version and the commit.
#
# usage: scripts/deb/build.sh   (prints the .deb's path as its last line)
set -eu
here=$(cd "$(dirname "$0")" && pwd -P)
root=$(cd "$here/../.." && pwd -P)
"$root/scripts/install-deps.sh" deb
version=$("$root/scripts/install/version.sh")
out=$root/build/deb
tree=$out/srpt-cxx-$version
rm -rf "$out"
mkdir -p "$out"
"$root/scripts/install/dkms-src.sh" "$tree"
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
