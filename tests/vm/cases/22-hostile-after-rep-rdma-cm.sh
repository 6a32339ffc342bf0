#!/bin/bash
# 22 over RDMA/CM: an initiator that rejects the REP, withholds the RTU,
# vanishes after RTU (never answers the DREQ), or races two SINGLE logins
# of one I_T nexus; and the per-nexus channel limit. Every channel is
# released, disabling a TPG never waits on a silent initiator.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/hostile.sh"

TMPDIR=$(mktemp -d)
srpt_load max_channels_per_nexus=1
ti_hostile_target rdma
ti_after_rep rdma
ti_channel_limit rdma
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
