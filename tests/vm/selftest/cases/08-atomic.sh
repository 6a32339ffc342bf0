#!/bin/bash
# Self-test (debug kernel): a GFP_KERNEL allocation under a spinlock.  The
# script itself passes; the runner MUST fail this case from the kernel log
# ("BUG: sleeping function called from invalid context", DEBUG_ATOMIC_SLEEP).
. "$SRPT_ROOT/tests/vm/lib.sh"
run insmod "${SRPT_VM_SELFTEST_KO:?}" mode=atomic
run rmmod srpt_vm_selftest
exit 0
