#!/bin/bash
# Self-test: the module spins in a loop with no scheduling point for 40 s
# past the soft-lockup threshold (2 * watchdog_thresh; the guests boot with
# 30, scripts/vm/boot.sh): 100 s. The detector checks every 12 s and under
# TCG late: a 70 s spin went unreported, an 85 s one was reported at 78 s.
# The script itself passes; the runner MUST fail this case from the kernel
# log with "soft lockup": the raised threshold still catches a CPU that
# never schedules. The self-test's kernels (6.12, the debug kernel) are
# PREEMPT_VOLUNTARY, where such a loop is never preempted
# (srpt_vm_selftest.c, mode=spin).
. "$SRPT_ROOT/tests/vm/lib.sh"
thresh=$(cat /proc/sys/kernel/watchdog_thresh)
[ "$thresh" = 30 ] || fail "watchdog_thresh is $thresh, not the 30 the guests boot with"
run insmod "${SRPT_VM_SELFTEST_KO:?}" mode=spin spin_s=$((2 * thresh + 40))
run rmmod srpt_vm_selftest
exit 0
