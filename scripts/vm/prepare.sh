#!/bin/sh
# Prepare what a guest boot needs, once per kernel ABI (cached under build/vm):
#   1. the Debian kernel image matching the installed headers: downloaded with
#      `apt-get download` and unpacked with `dpkg-deb -x` -- never installed on
#      the host (the host runs another kernel; installing would touch /boot);
#   2. `depmod -b` on the unpacked tree, on the host (seconds, versus ~35 s
#      under TCG), so that modprobe works in the guest;
#   3. a small initramfs: busybox-static, the modules needed to mount the host
#      root over 9p with an overlay on top (resolved with modprobe
#      --show-depends against the unpacked tree), and scripts/vm/init.
#
# usage: scripts/vm/prepare.sh          (KVER=<abi>-amd64 to override the ABI;
#                                       SRPT_DEBUG_KERNEL=1: the debug kernel)
# Prints nothing when everything is cached.
set -eu
SRPT_ROOT=$(cd "$(dirname "$0")/../.." && pwd -P)
. "$SRPT_ROOT/scripts/vm/common.sh"

mkdir -p "$VM_DIR/cache"
# Parallel make targets (vm-check, check, demo) may all prepare at once.
exec 9>"$VM_DIR/.prepare.lock"
flock 9

# --- 1. kernel image --------------------------------------------------------
fetch_kernel() {
	pkg="linux-image-$KVER"
	# Prefer exactly the version of the installed headers (same build), fall
	# back to whatever the mirror has for this ABI name.
	hver=$(dpkg-query -W -f='${Version}' "linux-headers-$KVER" 2>/dev/null || true)
	deb=$(ls "$VM_DIR/cache/${pkg}_"*.deb 2>/dev/null | head -n 1 || true)
	if [ -z "$deb" ]; then
		vm_log "downloading $pkg${hver:+ ($hver)}"
		log="$VM_DIR/cache/apt-download.log"
		dl() { (cd "$VM_DIR/cache" && apt-get download -q "$@") >>"$log" 2>&1; }
		# An empty/stale package list on a fresh machine: update once and retry.
		dl "$pkg${hver:+=$hver}" || dl "$pkg" ||
			{ apt-get update -q >>"$log" 2>&1 && { dl "$pkg${hver:+=$hver}" || dl "$pkg"; }; } ||
			vm_die "apt-get download $pkg failed, see $log"
		deb=$(ls "$VM_DIR/cache/${pkg}_"*.deb | head -n 1)
	fi
	# Unpack into a temporary dir and rename, so an interrupted run never
	# leaves a half tree that looks complete.
	tmp="$VM_KTREE.tmp"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	dpkg-deb -x "$deb" "$tmp"
	# bookworm ships /lib/modules; a merged-/usr package may use usr/lib/modules.
	if [ ! -d "$tmp/lib/modules/$KVER" ] && [ -d "$tmp/usr/lib/modules/$KVER" ]; then
		mkdir -p "$tmp/lib/modules"
		mv "$tmp/usr/lib/modules/$KVER" "$tmp/lib/modules/$KVER"
	fi
	[ -f "$tmp/boot/vmlinuz-$KVER" ] || vm_die "$deb has no boot/vmlinuz-$KVER"
	# depmod -b works on the unpacked tree; System.map makes it check symbols.
	depmod -b "$tmp" -F "$tmp/boot/System.map-$KVER" "$KVER"
	basename "$deb" >"$tmp/.srpt-vm-complete"
	rm -rf "$VM_KTREE"
	mv "$tmp" "$VM_KTREE"
}
# `make -C <kdir> M=<checkout> clean` deletes every *.ko below the checkout,
# build/vm included: check a module the guest needs, not only the stamp.
# The debug kernel (SRPT_DEBUG_KERNEL=1) is never fetched: its build
# installed the tree and ran depmod.
if [ -n "$VM_DEBUG" ]; then
	[ -f "$VM_VMLINUZ" ] && [ -f "$VM_MODDIR/modules.dep" ] &&
		[ -f "$VM_MODDIR/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko" ] ||
		vm_die "debug kernel tree $VM_KTREE is incomplete (no vmlinuz, modules.dep or rdma_rxe.ko)"
elif [ ! -f "$VM_KSTAMP" ] || [ ! -f "$VM_VMLINUZ" ] ||
	[ ! -f "$VM_MODDIR/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko" ]; then
	fetch_kernel
fi

# --- 2. initramfs -----------------------------------------------------------
# Modules PID 1 loads before it can reach the host root, in dependency order.
INITRD_MODULES="virtio_pci 9pnet_virtio 9p overlay"

build_initramfs() {
	# Must be busybox-static's binary: the initramfs has no libc.
	[ "$(dpkg-query -W -f='${db:Status-Status}' busybox-static 2>/dev/null)" = installed ] ||
		vm_die "busybox-static missing; run scripts/install-deps.sh vm"
	bb=/bin/busybox
	tmp="$VM_DIR/initramfs.tmp"
	rm -rf "$tmp"
	mkdir -p "$tmp/bin" "$tmp/sbin" "$tmp/proc" "$tmp/sys" "$tmp/dev" "$tmp/modules"
	cp "$bb" "$tmp/bin/busybox"
	ln -s busybox "$tmp/bin/sh"
	cp "$SRPT_ROOT/scripts/vm/init" "$tmp/init"
	chmod 755 "$tmp/init"
	# modprobe --show-depends prints "insmod <path>" lines in load order
	# (dependencies first); paths are under the -d base dir.  "builtin" lines
	# are for modules compiled into vmlinuz and need nothing.
	: >"$tmp/modules.list"
	for m in $INITRD_MODULES; do
		modprobe --show-depends -d "$VM_KTREE" -S "$KVER" "$m" |
			awk '$1 == "insmod" { print $2 }'
	done | while read -r ko; do
		b=$(basename "$ko")
		if [ ! -f "$tmp/modules/$b" ]; then
			cp "$ko" "$tmp/modules/$b"
			echo "$b" >>"$tmp/modules.list"
		fi
	done
	[ -s "$tmp/modules.list" ] || vm_die "no initramfs modules resolved"
	(cd "$tmp" && find . | sort | cpio -o -H newc --quiet --owner=0:0) | gzip -1 >"$VM_INITRD.tmp"
	mv "$VM_INITRD.tmp" "$VM_INITRD"
	rm -rf "$tmp"
}
# Rebuild when missing or older than its inputs (init script, this script).
if [ ! -f "$VM_INITRD" ] ||
	[ "$SRPT_ROOT/scripts/vm/init" -nt "$VM_INITRD" ] ||
	[ "$SRPT_ROOT/scripts/vm/prepare.sh" -nt "$VM_INITRD" ] ||
	[ "$VM_KSTAMP" -nt "$VM_INITRD" ]; then
	build_initramfs
fi
