#!/bin/bash
# 15 configuration changes under a logged-in initiator: the RDMA/CM
# listener moves live when rdma_cm_port is rewritten and stops at 0;
# removing the initiator's ACL, and disabling the TPG, each release its
# channels at once (the initiator's reconnects are refused with the reason
# of the new state); all through the one release path, with no report.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"

# Let the initiator retry a lost connection after 1 s (default 10 s).
fast_reconnect() {
	local p
	for p in /sys/class/srp_remote_ports/port-*/reconnect_delay; do
		echo 1 >"$p" || fail "setting $p"
	done
}

srpt_load
name=$(port_guid_name)
t=$SRPT_CFS/$name/tpgt_1
srp_target "$name" "$VETH0_IP"

# The listener moves: 5555 -> 5556, then stops.
run sh -c "echo 5556 > $SRPT_CFS/discovery_auth/rdma_cm_port"
srp_login "ch_count=1" && fail "login on the old port 5555 succeeded after the move"
SRP_PORT=5556 srp_login "ch_count=1" || fail "login on the new port 5556 failed"
srp_disk >/dev/null || fail "no disk through port 5556"
srp_logout
srp_wait_channels 0
run sh -c "echo 0 > $SRPT_CFS/discovery_auth/rdma_cm_port"
assert_eq "$(cat $SRPT_CFS/discovery_auth/rdma_cm_port)" 0 "rdma_cm_port"
SRP_PORT=5556 srp_login "ch_count=1" && fail "login succeeded with the listener stopped"
run sh -c "echo $SRP_PORT > $SRPT_CFS/discovery_auth/rdma_cm_port"

# ACL removal while logged in: the target core closes the session.
srp_login "ch_count=1" || fail "add_target failed"
fast_reconnect
srp_disk >/dev/null || fail "no disk"
srp_wait_channels 1
kmsg_mark "15 acl"
run rm "$t/acls/$VETH0_IP/lun_0/lun_0"
run rmdir "$t/acls/$VETH0_IP/lun_0"
run rmdir "$t/acls/$VETH0_IP"
expect_dmesg_since "15 acl" "ib_srpt: channel $VETH0_IP .* closing: session closed by the target core" "ACL removal closed the channel"
sleep 3
expect_dmesg_since "15 acl" "rejected: 0x00010006" "reconnect without ACL refused"
srp_channels | grep -q " live " && fail "a channel is live without an ACL"
srp_logout

# TPG disable while logged in.
run mkdir "$t/acls/$VETH0_IP"
srp_login "ch_count=1" || fail "add_target failed"
fast_reconnect
srp_wait_channels 1
kmsg_mark "15 disable"
run sh -c "echo 0 > $t/enable"
srp_channels | grep -q . && fail "channels left after the TPG was disabled"
expect_dmesg_since "15 disable" "ib_srpt: channel $VETH0_IP .* closing: TPG disabled" "disable closed the channel"
sleep 3
expect_dmesg_since "15 disable" "rejected: 0x00010001" "reconnect to a disabled TPG refused"
srp_logout
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
