#!/bin/sh
# DKMS's MAKE[0] (scripts/install/dkms.conf.in): builds ib_srpt.ko in the
# current directory (DKMS's copy of the source) for kernel KVER, whose build
# tree is KDIR, with the g++ of the gcc major version that built that kernel
# (C++ objects must match the kernel's compiler: README.md, "Supported
# kernels").
# Anything it cannot build for stops here with one line saying why, so DKMS
# reports a failed build and installs nothing.
#
# --check runs the same checks and nothing else: exit 0 when the kernel can
# be built for, else 1 with the line. dkms.conf asks it for every kernel,
# so that DKMS skips (BUILD_EXCLUSIVE_KERNEL, AUTOINSTALL) rather than fails
# a kernel it cannot build for: a failed autoinstall in a kernel package's
# postinst hook leaves apt half-configured.
#
# usage: dkms-build.sh [--check] KVER KDIR
set -eu
check=0
[ "${1:-}" != --check ] || { check=1; shift; }
kver=${1:?usage: dkms-build.sh [--check] KVER KDIR}
# (--check with an empty KDIR: the kernel's own build tree.)
kdir=${2:-/lib/modules/$kver/build}
here=$(cd "$(dirname "$0")" && pwd -P)
src=$(cd "$here/../.." && pwd -P)
fail() { echo "srpt-cxx: cannot build ib_srpt.ko for $kver: $*" >&2; exit 1; }

[ -f "$kdir/.config" ] || fail "no kernel build tree at $kdir (install linux-headers-$kver)"
# The oldest kernel the module is written for (6.1 LTS, README.md,
# "Supported kernels").
ver=$(sed -n 's/^VERSION = \([0-9]*\)$/\1/p' "$kdir/Makefile" 2>/dev/null | head -n 1)
patch=$(sed -n 's/^PATCHLEVEL = \([0-9]*\)$/\1/p' "$kdir/Makefile" 2>/dev/null | head -n 1)
if [ -n "$ver" ] && [ -n "$patch" ] && [ $((ver * 1000 + patch)) -lt 6001 ]; then
	fail "kernel $ver.$patch is older than 6.1, the oldest srpt-cxx supports"
fi
grep -q '^CONFIG_INFINIBAND=' "$kdir/.config" || fail "the kernel has no InfiniBand/RDMA core (CONFIG_INFINIBAND)"
grep -q '^CONFIG_TARGET_CORE=' "$kdir/.config" || fail "the kernel has no SCSI target core (CONFIG_TARGET_CORE)"
gcc=$(sed -n 's/^CONFIG_GCC_VERSION=\([0-9]*\)$/\1/p' "$kdir/.config")
[ -n "$gcc" ] && [ "$gcc" -gt 0 ] || fail "the kernel was not built with gcc (its C++ objects need the same compiler)"
cxx=g++-$((gcc / 10000))
command -v "$cxx" >/dev/null 2>&1 || fail "it was built with gcc $((gcc / 10000)); install $cxx"
[ $check = 0 ] || exit 0
exec make -j"$(nproc)" -C "$kdir" M="$src" CXX="$cxx" \
	SRPT_VERSION="$("$here/version.sh")" modules
