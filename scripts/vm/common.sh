# Shared settings of the VM scripts; sourced (not run) by scripts/vm/*.sh and
# tests/vm/run.sh.  The caller sets SRPT_ROOT (absolute path of the checkout)
# before sourcing.
#
# Everything generated lives under $SRPT_ROOT/build/vm:
#   cache/              downloaded linux-image .deb files
#   kernel/<kver>/      the .deb unpacked (boot/vmlinuz-<kver>, lib/modules/<kver>)
#                       plus depmod output, never installed on the host
#   initramfs-<kver>.cpio.gz
#   selftest/<kver>/    the self-test module, built from tests/vm/selftest
#   runs/<name>/        one directory per guest boot: console.log, job.sh,
#                       guest.log, per-case logs and results (9p share, rw)

: "${SRPT_ROOT:?SRPT_ROOT must be set before sourcing common.sh}"

VM_DIR="$SRPT_ROOT/build/vm"

# The kernel ABI we test against is the one the module is built against:
# $KVER, else the default kernel (scripts/default-kver.sh), never the newest
# headers installed and never `uname -r`: the host's running kernel is not
# Debian's.
# KVER may be a name of scripts/kernel/kernels (6.12) or an ABI.
vm_kver() {
	"$SRPT_ROOT/scripts/kernel/info.sh" "${KVER:-}" abi
}

# SRPT_DEBUG_KERNEL=1: the project's debug kernel (scripts/debug-kernel/,
# KASAN, lockdep, kmemleak...) instead of a Debian package.  It must have
# been built (make check-debug builds it); nothing is downloaded.  Its
# module tree is the cache's tree/, its KDIR the cache's build/.
VM_DEBUG=
case "${SRPT_DEBUG_KERNEL:-0}" in
0 | '') ;;
*)
	VM_DEBUG=$("$SRPT_ROOT/scripts/debug-kernel/build.sh" --cached) || exit 1
	KVER=$(cat "$VM_DEBUG/kver") || exit 1
	;;
esac

KVER=$(vm_kver) || exit 1
export KVER
if [ -n "$VM_DEBUG" ]; then
	# (Physical paths: the guest's init bind-mounts the module tree before
	# it switches root, where a symlink to a host path would not resolve.)
	VM_KTREE=$(cd "$VM_DEBUG/tree" && pwd -P) || exit 1  # modules_install'ed, depmod done
	VM_HEADERS="$VM_DEBUG/build"            # the object tree: KDIR
	VM_KSTAMP="$VM_DEBUG/.complete"
	# Every Kbuild run (scripts/kernel/kmake.sh: make tools, the self-test
	# module) builds against it.
	KDIR=$VM_HEADERS
	export KDIR
else
	VM_KTREE="$VM_DIR/kernel/$KVER"         # unpacked linux-image
	VM_HEADERS="/usr/src/linux-headers-$KVER"
	VM_KSTAMP="$VM_KTREE/.srpt-vm-complete"
fi
VM_VMLINUZ="$VM_KTREE/boot/vmlinuz-$KVER"
VM_MODDIR="$VM_KTREE/lib/modules/$KVER"         # bind-mounted at /lib/modules/$KVER in the guest
VM_INITRD="$VM_DIR/initramfs-$KVER.cpio.gz"

vm_log() { echo "vm: $*" >&2; }
vm_die() { echo "vm: error: $*" >&2; exit 1; }

# The module built for $KVER (make KVER=... module keeps one per kernel),
# else the last one built in the checkout (callers check its vermagic).
vm_default_module() {
	if [ -f "$VM_DIR/../kernels/$KVER/ib_srpt.ko" ]; then
		echo "$VM_DIR/../kernels/$KVER/ib_srpt.ko"
	else
		echo "$SRPT_ROOT/ib_srpt.ko"
	fi
}
# Debian's own ib_srpt of the unpacked tree: .ko on 6.1, .ko.xz from 6.12.
vm_intree_module() {
	local f
	for f in "$VM_MODDIR"/kernel/drivers/infiniband/ulp/srpt/ib_srpt.ko*; do
		[ -f "$f" ] && { echo "$f"; return; }
	done
	echo "$VM_MODDIR/kernel/drivers/infiniband/ulp/srpt/ib_srpt.ko"
}
# vm_copy_module SRC DST: a plain copy the guest can insmod, unpacked if
# compressed (busybox and some tools read only plain modules).
vm_copy_module() {
	case "$1" in
	*.xz) xz -dc "$1" >"$2" ;;
	*.zst) zstd -qdc "$1" >"$2" ;;
	*) cp "$1" "$2" ;;
	esac
}
# vm_host_prepare CASE-FILE...: what selected cases need built on the host
# before the guest boots, named by a line "# host: WHAT" in the case:
#   packages  tests/vm/packages.sh (this commit's Debian package and an
#             upgrade of it, under build/vm/deb).
# A failure is logged, not fatal: the case that needed it fails by itself,
# saying so, and the other cases still run.
vm_host_prepare() {
	local f
	for f in "$@"; do
		grep -q '^# host: packages' "$f" || continue
		"$SRPT_ROOT/tests/vm/packages.sh" >"$VM_DIR/packages.log" 2>&1 ||
			vm_log "building the Debian packages failed (log: $VM_DIR/packages.log)"
		return 0
	done
}
# vm_case_named_only CASE-FILE: the case has a line "# select: named" and
# runs only when its number or name is asked for (run.sh's filters,
# SRPT_VM_CASES), never in a run of every case: case 60, whose DKMS builds
# under TCG take longer than the rest of a suite (make check-package).
vm_case_named_only() { grep -q '^# select: named' "$1"; }
