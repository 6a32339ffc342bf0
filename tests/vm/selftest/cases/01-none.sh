#!/bin/bash
# Self-test control: the self-test module loads and unloads with no report.
# This case must PASS; it shows the runner does not fail everything.
. "$SRPT_ROOT/tests/vm/lib.sh"
run insmod "${SRPT_VM_SELFTEST_KO:?}" mode=none
run rmmod srpt_vm_selftest
exit 0
