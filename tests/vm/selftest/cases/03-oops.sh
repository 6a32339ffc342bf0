#!/bin/bash
# Self-test: a real NULL-pointer Oops from module init (insmod gets killed,
# the guest lives on).  The script itself passes; the runner MUST fail this
# case from the kernel log ("Oops").  Keep it last: the kernel is tainted and
# the half-loaded module stays.
. "$SRPT_ROOT/tests/vm/lib.sh"
echo 0 >/proc/sys/kernel/panic_on_oops
echo "+ insmod ${SRPT_VM_SELFTEST_KO:?} mode=oops (expected to be killed)"
insmod "$SRPT_VM_SELFTEST_KO" mode=oops
echo "insmod exit status $?"
exit 0
