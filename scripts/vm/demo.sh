#!/bin/bash
# Demo: boot a guest with Debian's kernel, load the module, create Soft-RoCE
# over a veth pair, show what the module found and its configfs tree, then
# serve a null_blk LUN over rxe to the in-kernel initiator ib_srp, verify a
# read/write through it, and power off.
#
# usage: scripts/vm/demo.sh [--module PATH|intree]
#   default module: the one built for the kernel (build/kernels/<abi>/, else
#   <checkout>/ib_srpt.ko; env SRPT_MODULE); "intree" uses Debian's own
#   ib_srpt.ko from the unpacked kernel package. KVER= picks the kernel
#   (scripts/kernel/kernels; default Debian 12's 6.1).
# The guest's output is printed live; everything is kept in build/vm/runs/demo.
set -euo pipefail
SRPT_ROOT=$(cd "$(dirname "$0")/../.." && pwd -P)
. "$SRPT_ROOT/scripts/vm/common.sh"

module=${SRPT_MODULE:-$(vm_default_module)}
while [ $# -gt 0 ]; do
	case "$1" in
	--module) module=$2; shift 2 ;;
	--module=*) module=${1#*=}; shift ;;
	*) echo "usage: $0 [--module PATH|intree]" >&2; exit 2 ;;
	esac
done
"$SRPT_ROOT/scripts/install-deps.sh" vm
"$SRPT_ROOT/scripts/vm/prepare.sh"
[ "$module" != intree ] || module=$(vm_intree_module)
case "$module" in /*) ;; *) module=$PWD/$module ;; esac
[ -f "$module" ] || vm_die "module not found: $module (build it first, or --module PATH|intree)"
case "$(modinfo -F vermagic "$module" 2>/dev/null)" in
"$KVER "*) ;;
*) vm_die "$module is not built for $KVER (make KVER=$KVER module)" ;;
esac

out=$VM_DIR/runs/demo
mkdir -p "$out"
rm -rf "${out:?}"/*
# The guest loads a plain copy (the in-tree one may be compressed).
vm_copy_module "$module" "$out/ib_srpt.ko"
module=$out/ib_srpt.ko
{
	printf 'export SRPT_ROOT=%q SRPT_MODULE=%q SRPT_VM_OUT=%q\n' "$SRPT_ROOT" "$module" "$out"
	echo 'exec bash "$SRPT_ROOT/scripts/vm/demo-guest.sh"'
} >"$out/job.sh"

echo "demo: booting Debian $KVER under QEMU (TCG) with $module"
rc=0
"$SRPT_ROOT/scripts/vm/boot.sh" --follow --timeout 300 "$out" || rc=$?
# Kernel bug reports anywhere on the console fail the demo too.
pats=$(grep -v -e '^#' -e '^$' "$SRPT_ROOT/tests/vm/kernel-reports.txt")
hits=$(grep -v -e 'srpt-vm-mark: ' -e 'srpt-vm-init: ' "$out/console.log" | grep -E -- "$pats" || true)
if [ -n "$hits" ]; then
	echo "demo: the kernel reported a bug, see $out/console.log:"
	echo "$hits" | head -n 10
	rc=1
fi
echo "demo: guest finished with status $rc after $(cat "$out/elapsed")s; logs in $out"
exit $rc
