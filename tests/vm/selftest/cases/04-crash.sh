#!/bin/bash
# Self-test: the guest kernel panics in the middle of a case (sysrq crash).
# The guest reports nothing more; the host MUST fail this case and its
# "guest ran all cases and powered off" check (the guest died), and find the
# panic on the serial console.  Must be the last case of its run.
. "$SRPT_ROOT/tests/vm/lib.sh"
echo "+ echo c > /proc/sysrq-trigger (the guest dies here)"
sync
echo c >/proc/sysrq-trigger
sleep 30
echo "still alive after a sysrq crash?"
exit 0
