#!/bin/sh
# Install the Debian packages a part of srpt-cxx needs, only when missing.
#
# usage: scripts/install-deps.sh GROUP...
#   build  kernel headers + compiler to build ib_srpt.ko (and the VM self-test module)
#   unit   GoogleTest and g++ for the host unit tests
#   vm     QEMU, busybox-static and the guest-side tools for the VM tests
#   fuzz   clang and libFuzzer for the host fuzz targets (tests/fuzz)
#   deb    debhelper, dh-dkms and lintian for `make deb`, dkms to check it
#   bench  python3 and matplotlib for `make bench`'s report and plot
#   report python3 alone, for the report's host test in `make check`
#   all    every group above
#
# Why a script and not a README line: the machines this project runs on (a
# developer's, CI's) are handed out fresh; whatever the project uses must be
# installed by the project itself.  The script is idempotent and silent when
# nothing is missing, so every make target can call it unconditionally.
#
# Environment: KVER=<name|abi> selects the kernel headers for "build"
# (scripts/kernel/kernels; default: the linux-headers-amd64 meta package,
# i.e. Debian's current ABI). A kernel built in the trixie chroot needs only
# debootstrap here.
set -eu

# Packages per group.  Package names, not commands: dpkg-query is exact and
# fast, and some tools (e.g. the rdma command) live in a package of another name.
pkgs_build() {
	if [ -n "${KDIR:-}" ]; then
		# A kernel tree given by path (the debug kernel's object tree,
		# scripts/debug-kernel/): no headers package to install.
		:
	elif [ -n "${KVER:-}" ] &&
		[ "$("$(dirname "$0")/kernel/info.sh" "$KVER" build)" = chroot ]; then
		# Headers and compiler live in the trixie chroot (kernel/chroot.sh).
		echo debootstrap
	elif [ -n "${KVER:-}" ]; then
		echo "linux-headers-$("$(dirname "$0")/kernel/info.sh" "$KVER" abi)"
	else
		echo linux-headers-amd64
	fi
	echo g++-12 gcc make libelf-dev bc
}
pkgs_unit() {
	# clang: the thread-safety analysis of the lock annotations (tests/unit tsa);
	# libtsan2: ThreadSanitizer's runtime (tests/threads)
	echo libgtest-dev g++-12 g++ clang make libtsan2
}
pkgs_fuzz() {
	# clang-14: the compiler; libclang-rt-14-dev: libFuzzer and the ASan/UBSan
	# runtimes clang links (-fsanitize=fuzzer,address,undefined);
	# libgtest-dev: the unit tests' fixtures the targets run on.
	echo clang-14 libclang-rt-14-dev libgtest-dev make
}
pkgs_vm() {
	# qemu-system-x86: the emulator (TCG; no KVM here)
	# busybox-static:  the initramfs userland (statically linked, no libs to copy)
	# kmod:            depmod/modprobe on the host (unpacked tree) and in the guest
	# cpio:            packs the initramfs
	# iproute2:        ip (veth) and rdma (rxe link) in the guest
	# rdma-core:       rdma userspace (ibv_devices, rdma udev rules, srp_daemon...)
	# targetcli-fb, dbus: target configuration as users do it (dbus: see notes)
	# fio, sg3-utils:  I/O and SCSI tools for login/IO cases
	# apt/dpkg tools are on every Debian system: apt-get download, dpkg-deb.
	echo qemu-system-x86 busybox-static kmod cpio iproute2 rdma-core \
		targetcli-fb dbus fio sg3-utils coreutils util-linux procps \
		librdmacm-dev libibverbs-dev ibverbs-providers libibumad-dev gcc
	# (librdmacm-dev, libibverbs-dev: tests/tools/srp_login, a raw SRP login
	# over RDMA/CM built on the host and run in the guest; libibumad-dev:
	# tests/tools/dm_query, a Device Management query through ib_umad)
	# The self-test module and the module under test are built on the host.
	pkgs_build
}
pkgs_deb() {
	# make deb: Debian's packaging helpers, DKMS's (dh-dkms), lintian;
	# dkms itself for the host check that builds the packaged source.
	echo debhelper dh-dkms dpkg-dev lintian dkms git
}
pkgs_report() {
	echo python3
}
pkgs_bench() {
	echo "$(pkgs_report) python3-matplotlib"
}

# Print the packages of the list that are not installed.
missing() {
	for p in "$@"; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[ "$st" = installed ] || echo "$p"
	done
}

install_pkgs() {
	need=$(missing "$@")
	[ -n "$need" ] || return 0
	echo "install-deps: installing:" $need >&2
	export DEBIAN_FRONTEND=noninteractive
	# A fresh machine may have empty or stale package lists: update once and
	# retry when the first attempt cannot find or fetch a package.
	# shellcheck disable=SC2086
	if ! apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends $need >/dev/null 2>&1; then
		apt-get -o DPkg::Lock::Timeout=900 update -q >/dev/null
		apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends $need >/dev/null
	fi
}

[ $# -gt 0 ] || { echo "usage: $0 build|unit|vm|fuzz|bench|report|deb|all..." >&2; exit 2; }
all=""
for g in "$@"; do
	case "$g" in
	build) all="$all $(pkgs_build)" ;;
	unit) all="$all $(pkgs_unit)" ;;
	vm) all="$all $(pkgs_vm)" ;;
	fuzz) all="$all $(pkgs_fuzz)" ;;
	bench) all="$all $(pkgs_bench)" ;;
	report) all="$all $(pkgs_report)" ;;
	deb) all="$all $(pkgs_deb)" ;;
	all) all="$all $(pkgs_build) $(pkgs_unit) $(pkgs_vm) $(pkgs_fuzz) $(pkgs_bench) $(pkgs_deb)" ;;
	*) echo "install-deps: unknown group '$g' (build|unit|vm|fuzz|bench|report|deb|all)" >&2; exit 2 ;;
	esac
done
# shellcheck disable=SC2086
install_pkgs $all
