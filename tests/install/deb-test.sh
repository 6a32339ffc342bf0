#!/bin/bash
# make deb, then what the package does on a server, on the host without
# touching it: DKMS (in scratch trees) builds the packaged source for each
# host-built kernel given, and the module it makes carries the package's
# version and that kernel's vermagic; the DKMS build script refuses a kernel
# it cannot build for with one line saying why. Installing in a guest is
# tests/vm.
#
# usage: tests/install/deb-test.sh ABI...
set -u
here=$(cd "$(dirname "$0")/../.." && pwd -P)
PATH=$PATH:/sbin:/usr/sbin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=lib.sh
. "$here/tests/install/lib.sh"

deb=$("$here/scripts/deb/build.sh" | tail -n 1)
if [ -f "$deb" ]; then ok "make deb built $(basename "$deb"), lintian clean"; else
	nok "make deb failed"; summary; exit 1; fi
version=$(dpkg-deb -f "$deb" Version)
check "package version is the module version" "$("$here/scripts/install/version.sh")" "$version"
dpkg-deb -x "$deb" "$tmp/root"
mkdir -p "$tmp/dkms"
src=$tmp/root/usr/src/srpt-cxx-$version
check "dkms.conf names the version" "PACKAGE_VERSION=\"$version\"" "$(grep '^PACKAGE_VERSION=' "$src/dkms.conf")"

for abi in "$@"; do
	log=$tmp/dkms-$abi.log
	if dkms build -m srpt-cxx -v "$version" -k "$abi" --sourcetree "$tmp/root/usr/src" \
		--dkmstree "$tmp/dkms" >"$log" 2>&1; then
		ko=$(find "$tmp/dkms/srpt-cxx/$version/$abi" -name 'ib_srpt.ko*' | head -n 1)
		check "dkms build for $abi: module version" "$version" "$(modinfo -F version "$ko" 2>/dev/null)"
		check "dkms build for $abi: vermagic" "$abi" "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)"
	else
		nok "dkms build for $abi failed:"; tail -n 20 "$log"
		cat "$tmp/dkms/srpt-cxx/$version/build/make.log" 2>/dev/null | tail -n 20
	fi
done

# A kernel the source cannot build for: refused before make, with the reason.
refused() { # refused NAME WANT-IN-MESSAGE VERSION.PATCHLEVEL CONFIG-LINES...
	local name=$1 want=$2 v=$3 k=$tmp/k-$RANDOM out rc
	shift 3
	mkdir -p "$k"
	printf 'VERSION = %s\nPATCHLEVEL = %s\n' "${v%%.*}" "${v#*.}" >"$k/Makefile"
	printf '%s\n' "$@" >"$k/.config"
	out=$(cd "$src" && sh scripts/install/dkms-build.sh "$v-test" "$k" 2>&1)
	rc=$?
	case "$rc:$out" in
	1:*"$want"*) ok "refused: $name" ;;
	*) nok "refused: $name: exit $rc, '$out'" ;;
	esac
}
cores="CONFIG_INFINIBAND=m CONFIG_TARGET_CORE=m"
refused "no target core" "CONFIG_TARGET_CORE" 6.12 CONFIG_INFINIBAND=m CONFIG_GCC_VERSION=120200
refused "no RDMA core" "CONFIG_INFINIBAND" 6.12 CONFIG_TARGET_CORE=m CONFIG_GCC_VERSION=120200
# shellcheck disable=SC2086
refused "built with clang" "not built with gcc" 6.12 $cores CONFIG_GCC_VERSION=0
# shellcheck disable=SC2086
refused "its g++ missing" "install g++-99" 6.12 $cores CONFIG_GCC_VERSION=990100
# shellcheck disable=SC2086
refused "a 5.15 kernel" "older than 6.1" 5.15 $cores CONFIG_GCC_VERSION=120200

# The same kernels through DKMS, as a kernel or headers package's postinst
# hook runs it (dkms autoinstall) and as the package's postinst builds
# (dkms build): skipped, with the reason, never failed; nothing is built.
# A failed autoinstall in a kernel package's hook leaves apt half-configured.
skipped() { # skipped NAME WANT-IN-MESSAGE VERSION.PATCHLEVEL CONFIG-LINES...
	local name=$1 want=$2 v=$3 kver k out rc
	shift 3
	kver=$v.0-srpt-test-$RANDOM
	k=$tmp/kernels/$kver
	mkdir -p "$k/include"
	printf 'VERSION = %s\nPATCHLEVEL = %s\n' "${v%%.*}" "${v#*.}" >"$k/Makefile"
	printf '%s\n' "$@" >"$k/.config"
	set -- --sourcetree "$tmp/root/usr/src" --dkmstree "$tmp/dkms" --installtree "$tmp/lib"
	out=$(dkms autoinstall -k "$kver" --kernelsourcedir "$k" "$@" 2>&1)
	rc=$?
	case "$rc:$out" in
	0:*"$want"*"skipped"*) ok "dkms autoinstall skips $name" ;;
	*) nok "dkms autoinstall on $name: exit $rc (0 and the reason wanted):"; echo "$out" | tail -n 5 ;;
	esac
	out=$(dkms build -m srpt-cxx -v "$version" -k "$kver" --kernelsourcedir "$k" "$@" 2>&1)
	rc=$?
	case "$rc:$out" in
	77:*"$want"*) ok "dkms build skips $name (77)" ;;
	*) nok "dkms build on $name: exit $rc (77 and the reason wanted):"; echo "$out" | tail -n 5 ;;
	esac
	[ ! -d "$tmp/dkms/srpt-cxx/$version/$kver" ] || nok "dkms left a build for $name"
}
# shellcheck disable=SC2086
skipped "a 5.15 kernel" "older than 6.1" 5.15 $cores CONFIG_GCC_VERSION=120200
skipped "a kernel without a target core" "CONFIG_TARGET_CORE" 6.12 CONFIG_INFINIBAND=m CONFIG_GCC_VERSION=120200
# shellcheck disable=SC2086
skipped "a kernel whose g++ is missing" "install g++-99" 6.12 $cores CONFIG_GCC_VERSION=990100

summary
