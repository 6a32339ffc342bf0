#!/bin/bash
# Self-test (debug kernel): the self-test module kmalloc()s eight blocks and
# drops the pointers (eight: see mode=leak in srpt_vm_selftest.c), and stays
# loaded (so that the backtrace names it).  The script itself passes; the
# runner's kmemleak scan after the case MUST fail it ("kmemleak: ...
# unreferenced object"), for which one reported block is enough.
. "$SRPT_ROOT/tests/vm/lib.sh"
[ -e /sys/kernel/debug/kmemleak ] || log "no kmemleak on this kernel: the case will pass"
run insmod "${SRPT_VM_SELFTEST_KO:?}" mode=leak
exit 0
