#!/bin/bash
# 56 A QP on the SRQ is destroyed only after its Last WQE Reached event,
# also the first one on a device. The event comes from the device when its
# receive side next runs in the error state; until then a request the QP
# took before the error may still complete to the shared CQ, and its
# completion must not find the QP, its channel or the SRQ gone. A target
# that waited only on devices that had raised the event before would tear
# a device's first SRQ channels down without waiting, and SLUB would find
# the freed memory written ("BUG kmalloc-96: Object corrupt", in case 41 on
# 7.3).
# The fault point last_wqe_late holds the event of the first QP back for
# 300 ms; its channel logs out; the objects file counts QPs on an SRQ
# destroyed before the event (srq_qps_destroyed_before_last_wqe), which
# must stay 0, and the next login on the SRQ is served.
# Kernels whose RDMA core does not rely on the event (before 6.11) have an
# rxe that never raises it: there the case has nothing to hold back.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/hostile.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"
. "$SRPT_ROOT/tests/vm/srq.sh"

# srq_qps_destroyed_before_last_wqe counts only in a build that found the
# kernel's wait for the event (probe QP_SRQ_COMPLETION): without it the
# count cannot move, and a pass would prove nothing.
modinfo -F srpt_probes "$SRPT_MODULE" | grep -qw QP_SRQ_COMPLETION ||
	skip "module built without QP_SRQ_COMPLETION ($(uname -r)): nothing counts a QP destroyed early"
srpt_load
fault_debugfs
srq_ti_target


# The first QP of the device on the SRQ: no event seen from it yet.
fault_arm last_wqe_late 1
kmsg_mark "56 late"
srq_tur_answered "the first channel on the SRQ"
fault_settle
held=$(fault_injected last_wqe_late)
kver=$(uname -r)
major=${kver%%.*} minor=${kver#*.}
minor=${minor%%[!0-9]*}
if [ "$held" = 0 ] && [ $((major * 100 + minor)) -lt 611 ]; then
	skip "kernel $kver: rxe raised no Last WQE Reached event to hold back"
fi
assert_eq "$held" 1 "Last WQE Reached events held back"
assert_eq "$(obj srq_qps_destroyed_before_last_wqe)" 0 \
	"QPs on the SRQ destroyed before their Last WQE Reached event"
dmesg_since "56 late" | grep "destroyed before its Last WQE Reached" &&
	fail "a QP on the SRQ was destroyed before its Last WQE Reached event"
srq_tur_answered "the next channel on the SRQ"
fault_settle

srq_set 0
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
