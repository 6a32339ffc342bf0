#!/bin/bash
# Self-test: the module spins in a loop with no scheduling point until the
# soft-lockup detector reports it (the kernel's lockup taint), at most
# 2 * watchdog_thresh + 120 = 180 s (the guests boot with 30,
# scripts/vm/boot.sh). The detector reports 60 s after its last touch, at
# its next 12 s check: 74-84 s after the spin's start, since the module's
# own console line at the start touches it, and every later line the
# spinning CPU prints moves it on (one 30 s in left a fixed 100 s spin
# unreported; 6.1's one-time "hrtimer: interrupt took 60588116 ns" 40 s
# in put the report at 114 s, 2026-12-06). The cap, 104 s past the
# latest report of an untouched spin, bounds only a detector that never
# fires.
# The script itself passes; the runner MUST fail this case from the kernel
# log with "soft lockup": the raised threshold still catches a CPU that
# never schedules. The self-test's kernels (6.1 for make check, 6.12, the
# debug kernel) are PREEMPT_VOLUNTARY, where such a loop is never
# preempted (srpt_vm_selftest.c, mode=spin).
. "$SRPT_ROOT/tests/vm/lib.sh"
thresh=$(cat /proc/sys/kernel/watchdog_thresh)
[ "$thresh" = 30 ] || fail "watchdog_thresh is $thresh, not the 30 the guests boot with"
# RCU's stall report touches the soft-lockup detector on the CPU it names
# (print_cpu_stall_info -> touch_nmi_watchdog). On 6.1 this loop gets one
# at 21 s and every 63 s after even with preemption on, and no soft-lockup
# report in 160 s (2026-12-06); on 6.12 none came. That is how the spin went
# unreported in CI (2026-12-05) and in a clean-clone make check
# (2026-12-06), both on 6.1, which make check's self-test boots. The case
# proves the soft-lockup detector, so RCU's stall reports are off for the
# spin.
suppress=/sys/module/rcupdate/parameters/rcu_cpu_stall_suppress
was=$(cat "$suppress") || fail "cannot read $suppress"
trap 'echo "$was" >"$suppress"' EXIT
echo 1 >"$suppress" || fail "cannot write $suppress"
run insmod "${SRPT_VM_SELFTEST_KO:?}" mode=spin spin_s=$((2 * thresh + 120))
run rmmod srpt_vm_selftest
exit 0
