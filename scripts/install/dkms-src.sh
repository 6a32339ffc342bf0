#!/bin/sh
# The module's source as DKMS takes it: what Kbuild needs (Kbuild, src,
# include, scripts/kbuild) and the DKMS build script, plus LICENSE and
# README.md, the committed files only, with dkms.conf and the version stamp
# (scripts/install/version.sh) written in, since the copy has no git.
#
# usage: dkms-src.sh DIR [VERSION]   (DIR is made; it must not exist yet)
# VERSION replaces the commit's version (scripts/deb/build.sh --version: the
# guest's upgrade test needs two versions of one commit).
set -eu
dir=${1:?usage: dkms-src.sh DIR [VERSION]}
here=$(cd "$(dirname "$0")" && pwd -P)
root=$(cd "$here/../.." && pwd -P)
[ ! -e "$dir" ] || { echo "dkms-src: $dir exists" >&2; exit 1; }
version=$("$here/version.sh")
case $version in *.dirty)
	echo "dkms-src: uncommitted changes; a package is made from a commit" >&2
	exit 1 ;;
esac
version=${2:-$version}
mkdir -p "$dir"
git -C "$root" archive --format=tar HEAD \
	Kbuild LICENSE README.md src include scripts/kbuild \
	scripts/install/version.sh scripts/install/dkms-build.sh |
	tar -x -C "$dir"
echo "$version" >"$dir/scripts/install/stamp"
sed "s/@VERSION@/$version/" "$here/dkms.conf.in" >"$dir/dkms.conf"
