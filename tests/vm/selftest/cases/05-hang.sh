#!/bin/bash
# Self-test (not in the default set: it takes the case timeout + 30 s): insmod
# hangs in the kernel, unkillable.  The runner MUST fail this case, give up on
# the remaining ones and power the guest off; run with a short timeout:
#   tests/vm/run.sh --selftest=none,hang --case-timeout 10
. "$SRPT_ROOT/tests/vm/lib.sh"
echo "+ insmod ${SRPT_VM_SELFTEST_KO:?} mode=hang (hangs for an hour)"
insmod "$SRPT_VM_SELFTEST_KO" mode=hang
exit 0
