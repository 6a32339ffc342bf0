#!/bin/bash
# Self-test: the module spins in a loop with no scheduling point until the
# soft-lockup detector reports it (the kernel's lockup taint), at most
# 2 * watchdog_thresh + 120 = 180 s (the guests boot with 30,
# scripts/vm/boot.sh). The detector reports 60 s after its last touch, at
# its next 12 s check: 74-84 s after the spin's start, since the module's
# own console line at the start touches it, and every later line the
# spinning CPU prints moves it on (one 30 s in left a fixed 100 s spin
# unreported; 6.1's one-time "hrtimer: interrupt took 60588116 ns" 40 s
# in put the report at 114 s). The cap, 104 s past the
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
# Two other detectors report the same stall and touch the soft-lockup
# detector when they print from the spinning CPU, so both are off for the
# spin; the case proves the soft-lockup detector alone.
# - RCU's stall report touches it on the CPU it names
#   (print_cpu_stall_info -> touch_nmi_watchdog). On 6.1 this loop gets one
#   at 21 s and every 63 s after even with preemption on, and no soft-lockup
#   report in 160 s; on 6.12 none came. Unsilenced, it leaves the spin
#   unreported on 6.1, which make check's self-test boots.
# - The workqueue watchdog (CONFIG_WQ_WATCHDOG: the debug kernel only)
#   reports the stalled CPU's pool every 30 s, and show_one_worker_pool()
#   calls touch_nmi_watchdog() on the CPU its deferrable timer runs on.
#   When that was the spinning CPU, five reports (48-168 s) left the spin
#   unreported for the whole 180 s (debug kernel, spin on CPU 0); with the
#   timer on the other CPU the report came at 78 s.
# quiet FILE VALUE: write VALUE for the spin, the old value back at exit.
restore=()
trap 'for r in "${restore[@]}"; do echo "${r#* }" >"${r%% *}"; done' EXIT
quiet() {
	local was
	was=$(cat "$1") || fail "cannot read $1"
	restore+=("$1 $was")
	echo "$2" >"$1" || fail "cannot write $1"
}
quiet /sys/module/rcupdate/parameters/rcu_cpu_stall_suppress 1
wq=/sys/module/workqueue/parameters/watchdog_thresh
[ ! -e "$wq" ] || quiet "$wq" 0
run insmod "${SRPT_VM_SELFTEST_KO:?}" mode=spin spin_s=$((2 * thresh + 120))
run rmmod srpt_vm_selftest
exit 0
