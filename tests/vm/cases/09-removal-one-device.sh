#!/bin/bash
# case-timeout: 240
# select: named
# 09 Removing one RDMA device does not wait for another device's channels.
# Device B (rxe1 on a second veth pair, 198.51.100.0/24) serves a raw
# RDMA/CM login; B's link goes down and B's TPG is disabled, so the
# channel's release waits for B's port (up to 20 s, case 51) and the
# disable with it. Meanwhile rxe0, device A, which serves nothing, is
# deleted: its removal returns at once, not when B's release is done. B's
# link comes back, the disable finishes, B's channel is released; rxe0 is
# added again.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"

[ -x "$FAULT_TOOL" ] || fail "$FAULT_TOOL missing (make tools)"
B=rxe1 B_NET=veth2 B_PEER=veth3 B_IP=198.51.100.1 B_PEER_IP=198.51.100.2
b_port_is() { case $(cat "/sys/class/infiniband/$B/ports/1/state") in *"$1"*) return 0 ;; esac; return 1; }
b_cleanup() {
	ip link set "$B_NET" up 2>/dev/null
	rxe_present "$B" && rdma link delete "$B"
	ip link show "$B_NET" >/dev/null 2>&1 && ip link delete "$B_NET"
	rxe_present || rxe_add
}
trap b_cleanup EXIT

srpt_load
guid=$(srp_node_guid)  # the service GUID: rxe0's, the first device's
run ip link add "$B_NET" type veth peer name "$B_PEER"
run ip addr add "$B_IP/24" dev "$B_NET"
run ip addr add "$B_PEER_IP/24" dev "$B_PEER"
run ip link set "$B_NET" up
run ip link set "$B_PEER" up
run rxe_add "$B" "$B_NET"
name=$(port_guid_name "$B")
tpg=$SRPT_CFS/$name/tpgt_1
srp_target "$name" "$B_IP"
fault_debugfs

"$FAULT_TOOL" "$B_IP" "$SRP_PORT" "$(srp_initiator_id 0x0909)" "$guid" multi 300 >/tmp/hold.out 2>&1 &
hold=$!
srp_wait_channels 1
srp_channels | grep -q " $B/1 " || fail "the held channel is not on $B"
kmsg_mark "09 down"
run ip link set "$B_NET" down
wait_for "$B port 1 down" b_port_is DOWN
sh -c "echo 0 > $tpg/enable" &
dis=$!
wait_for "B's release waiting for its port" sh -c \
	"dmesg | awk '/srpt-vm-mark: 09 down\$/ { on = 1 } on' | grep -q 'the disconnect waits for it'"

kmsg_mark "09 remove A"
t0=$(date +%s%N)
timeout 60 rdma link delete "$RXE" || fail "rdma link delete $RXE failed or took 60 s"
ms=$((($(date +%s%N) - t0) / 1000000))
log "removing $RXE took $ms ms while $B's release waited"
rxe_present && fail "$RXE still present after its removal"
# B's release waits 20 s at most from the disable: a removal that waited
# for it takes most of that; one that does not, a second (8 s seen with
# the guest starved by four others on two cores).
[ "$ms" -lt $((15000 * WAIT_SCALE)) ] || fail "removing $RXE took $ms ms: it waited for $B's release"
kill -0 "$dis" 2>/dev/null || fail "B's TPG disable ended before its port came back"

run ip link set "$B_NET" up
wait "$dis" || fail "disabling B's TPG failed"
srp_wait_channels 0
wait "$hold"
st=$?
log "held login: $(tr '\n' ' ' </tmp/hold.out) (exit $st)"
[ "$st" = 0 ] && grep -q '^established ' /tmp/hold.out ||
	fail "the held login did not end established (exit $st): $(cat /tmp/hold.out)"
srp_cleanup
trap - EXIT
b_cleanup
srpt_unload || fail "unload failed"
exit 0
