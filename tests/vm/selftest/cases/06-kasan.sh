#!/bin/bash
# Self-test (debug kernel): a read after kfree() in the self-test module.  The
# script itself passes; the runner MUST fail this case from the kernel log
# ("BUG: KASAN: slab-use-after-free").
. "$SRPT_ROOT/tests/vm/lib.sh"
echo 0 >/proc/sys/kernel/panic_on_warn
run insmod "${SRPT_VM_SELFTEST_KO:?}" mode=kasan
run rmmod srpt_vm_selftest
exit 0
