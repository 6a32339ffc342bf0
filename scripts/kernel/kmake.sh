#!/bin/sh
# Runs Kbuild for an external module against one kernel of the matrix:
# make -C <headers> M=DIR CXX=<its g++> ARGS..., on the host or, for a kernel
# bookworm cannot build for, inside the cached trixie chroot (chroot.sh).
# Installs the headers first when they are missing.
#
# usage: KVER=<name|abi> scripts/kernel/kmake.sh DIR [MAKE ARGS...]
#   KVER empty: the default kernel. KDIR=... overrides the headers directory
#   (host builds only).
set -eu
here=$(cd "$(dirname "$0")" && pwd -P)
root=$(cd "$here/../.." && pwd -P)
dir=${1:?usage: kmake.sh DIR [MAKE ARGS...]}
shift
abi=$("$here/info.sh" "${KVER:-}" abi)
cxx=$("$here/info.sh" "$abi" cxx)
case "$("$here/info.sh" "$abi" build)" in
host)
	if [ -z "${KDIR:-}" ]; then
		KVER=$abi "$root/scripts/install-deps.sh" build
		KDIR=/usr/src/linux-headers-$abi
	fi
	[ -f "$KDIR/Makefile" ] || { echo "kmake: no kernel headers at $KDIR" >&2; exit 1; }
	# Debian's headers set CC to the kernel's compiler (.kernelvariables);
	# a tree built here (the debug kernel, with CC=gcc-12) names it only in
	# its .config, and Kbuild warns "the compiler differs" unless CC is it.
	cc=
	if [ ! -f "$KDIR/.kernelvariables" ]; then
		cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' "$KDIR/.config" 2>/dev/null)
		command -v "$cc" >/dev/null 2>&1 || cc=
	fi
	# KVER/KDIR must not reach the kernel's Makefile as anything but ours.
	env -u KVER -u KDIR make -C "$KDIR" M="$dir" CXX="$cxx" ${cc:+CC="$cc"} "$@"
	;;
chroot)
	"$here/chroot.sh" run "$abi" make -C "/usr/src/linux-headers-$abi" \
		M="$dir" CXX="$cxx" "$@"
	;;
esac
