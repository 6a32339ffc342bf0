#!/bin/bash
# 33 an IB/CM login is admitted under the GUID of the port GID it comes
# from, as in-tree (the interface id of the REQ path's initiator GID), not
# under the GUID its login bytes claim: the initiator port id is chosen by
# the initiator, so an ACL named by a port GUID would otherwise admit anyone
# who writes that GUID into the low half of the port id. Over RoCE v2 from
# 192.0.2.1 the initiator GID is ::ffff:192.0.2.1, GUID 0000:ffff:c000:0201.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/ibcm.sh"
trap ibcm_cleanup EXIT

# The in-tree driver has no IB/CM listener on RoCE ports (case 30).
srpt_is_intree && skip "in-tree ib_srpt does not serve IB/CM on RoCE"

srpt_load
ibcm_load
port=$(port_guid_name)
t=$SRPT_CFS/$port/tpgt_1
sender=$(printf '0000:ffff:%02x%02x:%02x%02x' ${VETH0_IP//./ })
claimed=1111:2222:3333:4444
iid=0000000000000033${claimed//:/}

# Only the GUID the login bytes claim has an ACL: refused.
srp_target "$port" "$claimed"
kmsg_mark "33 claimed"
out=$(ibcm_login "$iid"); log "$out"
ibcm_expect_reject "$out" 0x00010006
expect_dmesg_since "33 claimed" "ib_srpt: login from $sender \\(0x$iid\\) rejected: 0x00010006" "target names the sender's GUID"

# An ACL for the sender's GUID: admitted, and the session carries that name.
run mkdir "$t/acls/$sender"
IBCM_EXEC=1 ibcm_login "$iid" --hold-ms 15000 >"$SRPT_VM_OUT/33.out" &
pid=$!
srp_wait_channels 1
ch=$(srp_channels)
echo "$ch"
assert_eq "$(echo "$ch" | awk '{ print $1, $2, $3 }')" "0x$iid $sender ib_cm" "channel: port id, session name, cm"
wait $pid || fail "login from the admitted GUID: $(cat "$SRPT_VM_OUT/33.out")"
log "$(cat "$SRPT_VM_OUT/33.out")"
srp_wait_channels 0
srp_cleanup
srpt_unload || fail "unload failed"
run rmmod srpt_test_ibcm
exit 0
