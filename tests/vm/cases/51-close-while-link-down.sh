#!/bin/bash
# case-timeout: 240
# 51 A channel the target closes while its port is down (what case 44 can
# meet by chance, made deterministic). rxe turns a send it
# cannot route into the error state of the sending QP; for the port's GSI
# QP (QP1) that is for good: every later MAD on the device is lost, so no
# login on rxe0 is ever answered again (ib_srp then waits out its REQ
# retries holding its remote port's mutex, a hung task). A DREQ the target
# sends while the link is down is such a MAD. So a channel closed while its
# port is down disconnects once the port is active again (or when the wait
# for it ends; see Channel::release).
# Here: a raw RDMA/CM login holds a channel; veth0 (under rxe0) goes down;
# the TPG is disabled, which closes the channel; veth0 comes back: the
# disable finishes, and after re-enabling, a new login is answered.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"
. "$SRPT_ROOT/tests/vm/port.sh"

[ -x "$FAULT_TOOL" ] || fail "$FAULT_TOOL missing (make tools)"
srpt_load recv_ring_cache=0  # fault.sh counts allocations exactly
fault_target
tpg=$SRPT_CFS/$(port_guid_name)/tpgt_1
fault_warm_up


# The held login must outlast the outage: a DREQ of its own sent while
# the link is down would kill QP1 just as the target's would (on the debug
# kernel this case takes 12 s from link down to up, and a 15 s hold sent
# its DREQ in the middle). It ends when the target disconnects it.
"$FAULT_TOOL" "$VETH0_IP" "$SRP_PORT" "$FAULT_IID" "$FAULT_GUID" multi 300 >/tmp/hold.out 2>&1 &
hold=$!
srp_wait_channels 1
kmsg_mark "51 down"
run ip link set "$VETH0" down
wait_port DOWN
log "link down: port $(port_state)"
s=$SECONDS
sh -c "echo 0 > $tpg/enable" &
dis=$!
sleep 2
run ip link set "$VETH0" up
wait_port ACTIVE
log "link up: port $(port_state) after $((SECONDS - s)) s"
wait "$dis" || fail "disabling the TPG failed"
log "TPG disabled after $((SECONDS - s)) s"
srp_wait_channels 0
dmesg_since "51 down" | grep -E "ib_srpt|rxe" | head -20
expect_dmesg_since "51 down" "the disconnect waits for it" "the release waited for the port"
expect_dmesg_since "51 down" "port active again after" "and went on once it was back"
run sh -c "echo 1 > $tpg/enable"
out=$(fault_login multi)
log "login after the link came back: $out"
fault_expect_login "login after the link came back" "$out" established
wait "$hold"
st=$?
log "held login: $(tr '\n' ' ' </tmp/hold.out) (exit $st)"
[ "$st" = 0 ] && grep -q '^established ' /tmp/hold.out ||
	fail "the held login did not end established (exit $st): $(cat /tmp/hold.out)"
fault_check_clean "after the link came back"
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
