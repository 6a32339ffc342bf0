#!/bin/bash
# 31 IB/CM initiators that misbehave after the REP leave no channel behind:
# - no RTU: the target's REP retries run out (REQ timeouts of about 1 s, 3
#   retries) and the target releases the channel by itself, while the
#   initiator still holds its cm_id;
# - REJ instead of RTU: the channel is released at once;
# - vanish (RTU, then silence): a SINGLE login of the same I_T nexus makes
#   the target DREQ the old channel, which never gets a DREP; the target
#   still releases it (DREQ time-out) and keeps the new one.
# Then both modules unload cleanly.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/ibcm.sh"
trap ibcm_cleanup EXIT

srpt_load
ibcm_load
iid=$(ibcm_iid 31)
srp_target "$(port_gid_name)" "0x$iid"
o=$SRPT_VM_OUT

# --- no RTU
kmsg_mark "31 no-rtu"
IBCM_EXEC=1 ibcm_login "$iid" --after no-rtu --hold-ms 60000 >"$o/31-nortu.out" &
pid=$!
# The channel lives only until the target's REP retries run out (about
# 4.5 s), so a poll of the channel list can miss it on a starved guest (the
# debug kernel beside two other debug guests): the channel can come and go
# between two polls. The kernel log's line for the accepted login stays.
wait_for "the no-RTU login accepted (kernel log)" srp_login_accepted_since "31 no-rtu" "0x$iid"
log "channels after the REP: $(srp_channels)"
wait_channels_max 0 40
kill -0 $pid 2>/dev/null || fail "the initiator ended before the target released the channel"
expect_dmesg_since "31 no-rtu" "ib_srpt: channel 0x$iid .* closing: " "target closed the never-established channel"
log "$(dmesg_since "31 no-rtu" | grep -E 'ib_srpt: channel .* closing')"
kill $pid
wait $pid
out=$(cat "$o/31-nortu.out")
log "$out"
assert_eq "$(ti_field "$out" result)" established "no-RTU login got its REP"

# --- REJ instead of RTU
kmsg_mark "31 reject-rep"
out=$(ibcm_login "$iid" --after reject-rep) || fail "reject-rep login: $out"
log "$out"
assert_eq "$(priv_bytes "$out" 0 1)" c0 "SRP_LOGIN_RSP before the REJ"
srp_wait_channels 0
expect_dmesg_since "31 reject-rep" "ib_srpt: channel 0x$iid .* closing: " "target closed the rejected channel"

# --- vanish
kmsg_mark "31 vanish"
IBCM_EXEC=1 ibcm_login "$iid" --after vanish --hold-ms 120000 >"$o/31-vanish.out" &
vpid=$!
srp_wait_channels 1
assert_eq "$(srp_channels | awk '{ print $4 }')" live "vanished initiator's channel"
kmsg_mark "31 takeover"
IBCM_EXEC=1 ibcm_login "$iid" --hold-ms 60000 >"$o/31-takeover.out" &
tpid=$!
# The takeover is logged at once; the old channel goes when its DREQ times out.
for i in $(seq 300); do
	dmesg_since "31 takeover" | grep -q "older channels terminated" && break
	sleep 0.1
done
expect_dmesg_since "31 takeover" "ib_srpt: channel 0x$iid .* closing: replaced by a SINGLE login" "old channel terminated"
wait_channels_max 1 40
kill -0 $vpid 2>/dev/null || fail "the vanished initiator ended before the target released its channel"
assert_eq "$(srp_channels | awk '{ print $1, $3, $4 }')" "0x$iid ib_cm live" "the new channel stays"
# Closing the vanished login's file: it has ignored the DREQ until now.
kill $vpid
wait $vpid
log "vanish: $(cat "$o/31-vanish.out")"
assert_eq "$(ti_field "$(cat "$o/31-vanish.out")" result)" established "vanish login"
kill $tpid
wait $tpid
out=$(cat "$o/31-takeover.out")
log "takeover: $out"
assert_eq "$(ti_field "$out" result)" established "takeover login"
assert_eq "$(priv_bytes "$out" 26 1)" 01 "rsp_flags TERMINATED"
srp_wait_channels 0

# The module still serves a normal login.
out=$(ibcm_login "$iid") || fail "final login: $out"
srp_wait_channels 0
srp_cleanup
srpt_unload || fail "unload failed"
run rmmod srpt_test_ibcm
exit 0
