#!/bin/bash
# 66 The listener's address deleted and added again. The RDMA/CM listener
# is bound to the wildcard address (IPv6 any, which takes IPv4 too), not to
# an interface's address: when 192.0.2.1 leaves veth0, its RoCE GID
# (::ffff:192.0.2.1) leaves rxe0's GID table and ib_srp cannot reach the
# target; once the address is back, ib_srp logs in again through the same
# listener, without a write to rdma_cm_port, and reads back what it wrote.
# The listener never stops meanwhile (no "listener ... stopped" line). A
# trap puts the address back if the case ends early.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"

# addr_gid_present: rxe0 port 1 has the RoCE GID of $VETH0_IP.
addr_gid_present() {
	local hex
	hex=$(printf '%02x%02x:%02x%02x' ${VETH0_IP//./ })
	grep -qs "0000:0000:0000:0000:0000:ffff:$hex" /sys/class/infiniband/"$RXE"/ports/1/gids/*
}
addr_gid_absent() { ! addr_gid_present; }
addr_restore() {
	ip -o addr show dev "$VETH0" | grep -q " $VETH0_IP/" ||
		ip addr add "$VETH0_IP/24" dev "$VETH0"
}
trap addr_restore EXIT

# login_io N: ib_srp logs in, writes and reads back 4 MiB, logs out.
login_io() {
	local dev
	srp_login || fail "$1: add_target failed"
	dev=$(srp_disk) || fail "$1: no LIO disk"
	srp_wait_channels 2
	head -c 4M /dev/urandom >/tmp/66-data
	run dd if=/tmp/66-data of="$dev" bs=1M oflag=direct status=none
	cmp <(dd if="$dev" bs=1M count=4 iflag=direct status=none) /tmp/66-data ||
		fail "$1: read back differs"
	srp_logout
	srp_wait_channels 0
}

srpt_load
srp_target "$(port_guid_name)" "$VETH0_IP"
kmsg_mark "66 start"
login_io "before"
addr_gid_present || fail "no RoCE GID for $VETH0_IP before the deletion"

run ip addr del "$VETH0_IP/24" dev "$VETH0"
poll_until 10 addr_gid_absent || fail "the RoCE GID of $VETH0_IP stayed after the deletion"
if srp_login 2>/dev/null; then
	fail "ib_srp logged in to an address that is gone"
fi
log "without the address: add_target refused"

run ip addr add "$VETH0_IP/24" dev "$VETH0"
poll_until 10 addr_gid_present || fail "no RoCE GID for $VETH0_IP after it came back"
login_io "after"
dmesg_since "66 start" | grep -q "RDMA/CM listener.* stopped" && fail "the listener stopped"
assert_eq "$(cat "$SRPT_CFS/discovery_auth/rdma_cm_port")" "$SRP_PORT" "the listener's port"

srp_cleanup
srpt_unload || fail "unload failed"
exit 0
