#!/bin/bash
# Self-test: the module spins in a loop with no scheduling point until the
# soft-lockup detector reports it (the kernel's lockup taint), at most
# 2 * watchdog_thresh + 100 = 160 s (the guests boot with 30,
# scripts/vm/boot.sh). The detector reports 60 s after its last touch, at
# its next 12 s check: 77-84 s after the spin's start here, since the
# module's own console line at the start touches it. A fixed 100 s spin
# missed the report in CI (2026-12-05): any console line the spinning CPU
# prints moves it on, and one 30 s in left a 100 s spin unreported. The
# cap bounds only a detector that never fires.
# The script itself passes; the runner MUST fail this case from the kernel
# log with "soft lockup": the raised threshold still catches a CPU that
# never schedules. The self-test's kernels (6.12, the debug kernel) are
# PREEMPT_VOLUNTARY, where such a loop is never preempted
# (srpt_vm_selftest.c, mode=spin).
. "$SRPT_ROOT/tests/vm/lib.sh"
thresh=$(cat /proc/sys/kernel/watchdog_thresh)
[ "$thresh" = 30 ] || fail "watchdog_thresh is $thresh, not the 30 the guests boot with"
run insmod "${SRPT_VM_SELFTEST_KO:?}" mode=spin spin_s=$((2 * thresh + 100))
run rmmod srpt_vm_selftest
exit 0
