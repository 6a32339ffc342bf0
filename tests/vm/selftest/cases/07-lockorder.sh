#!/bin/bash
# Self-test (debug kernel): mutexes taken A-B, then B-A by one task (no
# deadlock).  The script itself passes; the runner MUST fail this case from
# the kernel log ("possible circular locking dependency").  Lockdep turns
# itself off at its first report and at any taint (a WARN, an Oops, a KASAN
# report): run it before every other reporting mode.
. "$SRPT_ROOT/tests/vm/lib.sh"
[ -r /proc/lockdep ] || log "no /proc/lockdep: this kernel has no lockdep, the case will pass"
grep -q '^debug_locks:.*1$' /proc/lockdep_stats 2>/dev/null ||
	log "lockdep is off already ($(grep debug_locks /proc/lockdep_stats 2>/dev/null))"
run insmod "${SRPT_VM_SELFTEST_KO:?}" mode=lockorder
run rmmod srpt_vm_selftest
exit 0
