#!/bin/bash
# Self-test: a real WARN_ON(1) from module init.  The script itself passes;
# the runner MUST fail this case from the kernel log ("WARNING:").
. "$SRPT_ROOT/tests/vm/lib.sh"
echo 0 >/proc/sys/kernel/panic_on_warn
run insmod "${SRPT_VM_SELFTEST_KO:?}" mode=warn
run rmmod srpt_vm_selftest
exit 0
