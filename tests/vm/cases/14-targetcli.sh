#!/bin/bash
# 14 the target configured with targetcli-fb alone (GID-named port, block
# backstore, LUN, ACL named by the initiator port id, as targetcli users do),
# saved, cleared, restored, and ib_srp logs in each time with verified I/O.
# discovery_auth/rdma_cm_port is not in rtslib's model: a raw write, which
# survives clear and restore.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"

srp_targetcli_env
# rtslib would modprobe ib_srpt (the in-tree one) if target/srpt did not
# exist yet: srpt_load creates it with our module.
srpt_load
srp_targetcli_target
gid=$TCLI_GID iid=$TCLI_IID
saved=/tmp/srpt-saved.json
run targetcli saveconfig savefile="$saved"
run targetcli ls /srpt
[ -d "$SRPT_CFS/0x${gid#ib.}/tpgt_1" ] || fail "targetcli made no TPG under the GID-named port"
run sh -c "echo $SRP_PORT > $SRPT_CFS/discovery_auth/rdma_cm_port"

io_once() {
	local dev
	srp_login "ch_count=1" || fail "$1: add_target failed"
	dev=$(srp_disk) || fail "$1: no disk"
	run dd if=/dev/urandom of=/tmp/p bs=1M count=8 status=none
	run dd if=/tmp/p of="$dev" bs=1M oflag=direct status=none
	run dd if="$dev" of=/tmp/b bs=1M count=8 iflag=direct status=none
	cmp /tmp/p /tmp/b || fail "$1: data differs"
	srp_channels | grep -q " 0x${iid#ib.} rdma_cm live" ||
		fail "$1: session not named by the initiator port id"
	srp_logout
	srp_wait_channels 0
	log "$1: login and 8 MiB verified"
}
io_once "configured"
run targetctl clear
[ -z "$(srpt_port_dirs)" ] || fail "targetctl clear left $(srpt_port_dirs)"
run targetctl restore "$saved"
assert_eq "$(cat $SRPT_CFS/discovery_auth/rdma_cm_port)" "$SRP_PORT" "rdma_cm_port after restore"
io_once "restored"
run targetctl clear
rmmod ib_srp
srpt_unload || fail "unload failed"
rmmod null_blk
exit 0
