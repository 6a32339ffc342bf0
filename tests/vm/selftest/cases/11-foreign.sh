#!/bin/bash
# Self-test: the guest kernel dies (sysrq crash) in a boot where no
# out-of-tree module was ever loaded, so its report carries no taint flag O
# (tests/vm/foreign.sh). The host MUST boot the guest once more for this
# case and the ones after it. Here the crash happens in the first boot
# only (a file in the shared output directory remembers it), so the run
# passes after one more boot; with SRPT_CASE_FOREIGN_ALWAYS=1 it happens in
# every boot, and the run MUST fail after the one boot it may add.
. "$SRPT_ROOT/tests/vm/lib.sh"
flag=$SRPT_VM_OUT/foreign-crashed
if [ -e "$flag" ] && [ "${SRPT_CASE_FOREIGN_ALWAYS:-0}" != 1 ]; then
	echo "booted again after the foreign crash: passing"
	exit 0
fi
# The premise: nothing out-of-tree loaded yet in this boot (flag O is 4096).
[ $(($(cat /proc/sys/kernel/tainted) & 4096)) = 0 ] ||
	fail "an out-of-tree module was loaded in this boot before the case: it must come first"
echo "crash $(date +%s)" >>"$flag"
echo "+ echo c > /proc/sysrq-trigger (the guest dies here, with no out-of-tree module loaded)"
sync
echo c >/proc/sysrq-trigger
sleep 30
echo "still alive after a sysrq crash?"
exit 0
