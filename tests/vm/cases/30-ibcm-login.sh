#!/bin/bash
# 30 IB/CM logins on RoCE, sent by srpt_test_ibcm.ko (userspace cannot send
# IB/CM REQs, and ib_srp logs in over RDMA/CM on rxe): a valid
# SRP_LOGIN_REQ as REQ private data is answered with a sane SRP_LOGIN_RSP in
# the REP and gives a live ib_cm channel that the initiator's DREQ releases;
# a bad opcode, IU length, buffer format and target port id are rejected
# with the SRP reasons of the check table of src/core/login.cpp; a REQ for a
# service id nobody listens on is rejected by the CM (reason 8), without SRP
# reply.
# The valid login's release also gets a late COMM_EST on its QP after the
# cm_id is gone (fault point qp_event_late): it must not reach the destroyed
# cm_id, which KASAN reports on the debug kernel.
# Against the in-tree driver (--module intree): it listens on IB/CM only on
# InfiniBand ports, so even the valid login must get CM reason 8 on rxe.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/ibcm.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"
trap ibcm_cleanup EXIT

srpt_load
ibcm_load
iid=$(ibcm_iid 30)
# GID-named port, ACL by initiator port id: both drivers try that name for
# an IB/CM login (session name 0x + 32 hex digits).
srp_target "$(port_gid_name)" "0x$iid"

if srpt_is_intree; then
	out=$(ibcm_login "$iid")
	log "$out"
	assert_eq "$(ti_field "$out" result)" rejected "in-tree: valid login over IB/CM on RoCE"
	assert_eq "$(ti_field "$out" cm_status)" 8 "in-tree: CM reason (invalid service id: no IB/CM listener on RoCE)"
	srp_cleanup
	exit 0
fi

# A valid login, held for 15 s (TCG is slow): a live IB/CM channel.
kmsg_mark "30 valid"
fault_debugfs
fault_arm qp_event_late 1
IBCM_EXEC=1 ibcm_login "$iid" --hold-ms 15000 >"$SRPT_VM_OUT/30-valid.out" &
pid=$!
srp_wait_channels 1
ch=$(srp_channels)
echo "$ch"
assert_eq "$(echo "$ch" | awk '{ print $1, $3, $4 }')" "0x$iid ib_cm live" "channel initiator, cm and state"
wait $pid || fail "valid login did not succeed (status $?): $(cat "$SRPT_VM_OUT/30-valid.out")"
out=$(cat "$SRPT_VM_OUT/30-valid.out")
log "$out"
assert_eq "$(ti_field "$out" result)" established "valid login"
# SRP_LOGIN_RSP: opcode c0, req_lim_delta 128, tag echoed, max_it_iu_len =
# the 8260 asked, max_ti_iu_len 256 (srp_max_rsp_size), buf_fmt direct |
# indirect, rsp_flags NO_CHAN (first channel of the nexus).
assert_eq "$(priv_bytes "$out" 0 1)" c0 "SRP_LOGIN_RSP opcode"
assert_eq "$(priv_bytes "$out" 4 4)" 00000080 "req_lim_delta"
assert_eq "$(priv_bytes "$out" 8 8)" 7465737400000000 "tag"
assert_eq "$(priv_bytes "$out" 16 4)" 00002044 "max_it_iu_len"
assert_eq "$(priv_bytes "$out" 20 4)" 00000100 "max_ti_iu_len"
assert_eq "$(priv_bytes "$out" 24 2)" 0006 "buf_fmt"
assert_eq "$(priv_bytes "$out" 26 1)" 00 "rsp_flags"
# The DREQ at the end released the channel.
srp_wait_channels 0
expect_dmesg_since "30 valid" "ib_srpt: login from .* \\(0x$iid\\) as 0x$iid: it_iu_len 8260" "target logged the login"
expect_dmesg_since "30 valid" "ib_srpt: channel 0x$iid .* closing: initiator disconnected" "the DREQ closed the channel"

# The login table over IB/CM.
out=$(ibcm_login "$iid" --opcode 0x05); log "$out"
ibcm_expect_reject "$out" 0x00010000
out=$(ibcm_login "$iid" --it-iu-len 32); log "$out"
ibcm_expect_reject "$out" 0x00010002
out=$(ibcm_login "$iid" --it-iu-len 1000000); log "$out"
ibcm_expect_reject "$out" 0x00010002
out=$(ibcm_login "$iid" --buf-fmt 0); log "$out"
ibcm_expect_reject "$out" 0x00010004
g=$(srp_node_guid)
out=$(ibcm --login "$iid" "${g}0000000000000001"); log "$out"
ibcm_expect_reject "$out" 0x00010003
# An initiator no ACL admits.
out=$(ibcm_login "$(ibcm_iid 31)"); log "$out"
ibcm_expect_reject "$out" 0x00010006
# Raw bytes shorter than an SRP_LOGIN_REQ: the CM pads them with zeros to
# 92 bytes, so the target sees a 64-byte IU: opcode 0xc0 is refused first,
# a zero opcode for its it_iu_len 0.
out=$(ibcm --req c0ffee); log "$out"
ibcm_expect_reject "$out" 0x00010000
out=$(ibcm --req 00); log "$out"
ibcm_expect_reject "$out" 0x00010002
srp_wait_channels 0

# Nobody listens on this service id: the CM itself rejects (reason 8).
out=$(IBCM_SID=5eed000000000030 ibcm_login "$iid"); log "$out"
assert_eq "$(ti_field "$out" result)" rejected "unknown service id"
assert_eq "$(ti_field "$out" cm_status)" 8 "CM reason invalid service id"
assert_eq "$(ti_field "$out" reason)" 0x00000000 "no SRP reject"

# Unreachable: veth1's address is local but not on rxe0 (no source GID).
out=$("$IBCM_TOOL" --cm ib --addr "$VETH1_IP" --service-id "$g" --login "$iid" "$g$g")
log "$out"
assert_eq "$(ti_field "$out" result)" unreachable "destination not on rxe0"

# A valid login right after all that.
out=$(ibcm_login "$iid") || fail "final valid login: $out"
log "$out"
srp_wait_channels 0
# The first valid login's release had its late COMM_EST (armed above).
assert_eq "$(fault_injected qp_event_late)" 1 "late COMM_EST delivered at the QP's destruction"
srp_cleanup
srpt_unload || fail "unload failed"
run rmmod srpt_test_ibcm
exit 0
