#!/bin/bash
# Self-test (every kernel): ib_srpt leaks three allocations on request
# (ib_srpt/fault "leak N", three writes) and is unloaded.  Its module exit
# MUST WARN with the counts (src/shim/counters.c), and this script checks
# that the warning names exactly the leaked allocations; the runner MUST then
# fail the case from the kernel log ("WARNING:") and, where kmemleak exists,
# from its scan ("kmemleak": an object's backtrace is in ib_srpt, unloaded by
# then).  Three, not one: kmemleak misses a leak that any stale value in
# scanned memory points into (a false negative, as its documentation says),
# so a single leak can go unreported; the runner needs only one of three
# reported.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"
[ -f "${SRPT_MODULE:-}" ] || fail "no ib_srpt.ko to test (build it: make module)"
echo 0 >/proc/sys/kernel/panic_on_warn
srpt_load
fault_debugfs
obj_read
log "after load: $OBJLINE"
kmsg_mark "srpt-leak"
for i in 1 2 3; do run sh -c "echo 'leak 200' >$DBG/fault"; done
[ "$(obj allocs)" = $((O_allocs + 3)) ] || fail "allocs did not grow by three: $(objline)"
srpt_unload || fail "unload failed"
line=$(dmesg_since srpt-leak | grep -m 1 'objects left at module exit')
[ -n "$line" ] || fail "module exit did not report the leak"
log "module exit: $line"
case "$line" in
*"allocs 3 ("*" bytes) cqs 0 qps 0 sessions 0 srqs 0 ownership_broken 0 srq_qps_destroyed_before_last_wqe 0;"*) ;;
*) fail "module exit reported other counts than the three leaked allocations" ;;
esac
exit 0
