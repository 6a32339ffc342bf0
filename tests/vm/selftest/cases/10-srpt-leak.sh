#!/bin/bash
# Self-test (every kernel): ib_srpt leaks one allocation on request
# (ib_srpt/fault "leak N") and is unloaded.  Its module exit MUST WARN with
# the counts (src/shim/counters.c), and this script checks that the warning
# names exactly the leaked allocation; the runner MUST then fail the case from
# the kernel log ("WARNING:") and, where kmemleak exists, from its scan
# ("kmemleak": the object's backtrace is in ib_srpt, unloaded by then).
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"
[ -f "${SRPT_MODULE:-}" ] || fail "no ib_srpt.ko to test (build it: make module)"
echo 0 >/proc/sys/kernel/panic_on_warn
srpt_load
fault_debugfs
obj_read
log "after load: $OBJLINE"
kmsg_mark "srpt-leak"
run sh -c "echo 'leak 200' >$DBG/fault"
[ "$(obj allocs)" = $((O_allocs + 1)) ] || fail "allocs did not grow by one: $(objline)"
srpt_unload || fail "unload failed"
line=$(dmesg_since srpt-leak | grep -m 1 'objects left at module exit')
[ -n "$line" ] || fail "module exit did not report the leak"
log "module exit: $line"
case "$line" in
*"allocs 1 ("*" bytes) cqs 0 qps 0 sessions 0 srqs 0 ownership_broken 0;"*) ;;
*) fail "module exit reported other counts than the one leaked allocation" ;;
esac
exit 0
