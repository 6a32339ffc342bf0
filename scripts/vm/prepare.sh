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
	pkg=$("$SRPT_ROOT/scripts/kernel/info.sh" "$KVER" image)
	where=$("$SRPT_ROOT/scripts/kernel/info.sh" "$KVER" build)
	log="$VM_DIR/cache/apt-download.log"
	# Prefer exactly the version of the installed headers (same build), fall
	# back to whatever the mirror has for this ABI name.
	hver=$(dpkg-query -W -f='${Version}' "linux-headers-$KVER" 2>/dev/null || true)
	debs=$(ls "$VM_DIR/cache/"*"$KVER"_*.deb 2>/dev/null || true)
	if [ -z "$debs" ] && [ "$where" = chroot ]; then
		# The suite is not among the host's apt sources: download in the
		# chroot that has it. Newer images are a metapackage over
		# linux-binary-<abi> (vmlinuz) and linux-modules-<abi>: take every
		# package of the ABI it depends on.
		vm_log "downloading $pkg and its parts (in the $where chroot)"
		"$SRPT_ROOT/scripts/kernel/chroot.sh" run "$KVER" sh -c '
			cd "$1" && all=$2
			for i in 1 2 3; do
				all=$( (echo "$all"; apt-cache depends $all |
					sed -n "s/^ *Depends: \(.*$3.*\)/\1/p") | sort -u)
			done
			apt-get download -q $all' sh "$VM_DIR/cache" "$pkg" "$KVER" >>"$log" 2>&1 ||
			vm_die "downloading $pkg in the chroot failed, see $log"
	elif [ -z "$debs" ]; then
		vm_log "downloading $pkg${hver:+ ($hver)}"
		dl() { (cd "$VM_DIR/cache" && apt-get download -q "$@") >>"$log" 2>&1; }
		# An empty/stale package list on a fresh machine: update once and retry.
		dl "$pkg${hver:+=$hver}" || dl "$pkg" ||
			{ apt-get update -q >>"$log" 2>&1 && { dl "$pkg${hver:+=$hver}" || dl "$pkg"; }; } ||
			vm_die "apt-get download $pkg failed, see $log"
	fi
	debs=$(ls "$VM_DIR/cache/"*"$KVER"_*.deb)
	# Unpack into a temporary dir and rename, so an interrupted run never
	# leaves a half tree that looks complete.
	tmp="$VM_KTREE.tmp"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	for deb in $debs; do
		dpkg-deb -x "$deb" "$tmp"
	done
	# bookworm ships /lib/modules and /boot; merged-/usr packages (7.3) put
	# the tree in usr/lib/modules with vmlinuz, System.map and config in it.
	if [ ! -d "$tmp/lib/modules/$KVER" ] && [ -d "$tmp/usr/lib/modules/$KVER" ]; then
		mkdir -p "$tmp/lib/modules"
		mv "$tmp/usr/lib/modules/$KVER" "$tmp/lib/modules/$KVER"
	fi
	mkdir -p "$tmp/boot"
	for f in vmlinuz System.map config; do
		[ -f "$tmp/lib/modules/$KVER/$f" ] && [ ! -f "$tmp/boot/$f-$KVER" ] &&
			mv "$tmp/lib/modules/$KVER/$f" "$tmp/boot/$f-$KVER"
	done
	[ -f "$tmp/boot/vmlinuz-$KVER" ] || vm_die "$debs: no vmlinuz for $KVER"
	# depmod -b works on the unpacked tree; a real System.map (not Debian's
	# placeholder pointing at the -dbg package) makes it check symbols.
	map=
	[ "$(stat -c %s "$tmp/boot/System.map-$KVER" 2>/dev/null || echo 0)" -gt 4096 ] &&
		map="-F $tmp/boot/System.map-$KVER"
	# shellcheck disable=SC2086
	depmod -b "$tmp" $map "$KVER"
	for deb in $debs; do basename "$deb"; done >"$tmp/.srpt-vm-complete"
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
	! ls "$VM_MODDIR"/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko* >/dev/null 2>&1; then
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
		# busybox insmod reads only plain modules: 6.12 and later
		# ship .ko.xz (CONFIG_MODULE_COMPRESS_XZ).
		case "$b" in
		*.ko.xz) b=${b%.xz}; [ -f "$tmp/modules/$b" ] || xz -dc "$ko" >"$tmp/modules/$b" ;;
		*.ko.zst) b=${b%.zst}; [ -f "$tmp/modules/$b" ] || zstd -qdc "$ko" >"$tmp/modules/$b" ;;
		*) [ -f "$tmp/modules/$b" ] || cp "$ko" "$tmp/modules/$b" ;;
		esac
		grep -qx "$b" "$tmp/modules.list" || echo "$b" >>"$tmp/modules.list"
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
