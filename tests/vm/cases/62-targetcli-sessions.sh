#!/bin/bash
# 62 `targetcli sessions` for SRP (for the in-tree driver it lists
# nothing: its ACLs have no info file). The target configured with
# targetcli-fb (GID-named port, ACL named by the initiator port id), ib_srp
# logged in with two channels: `sessions` lists one session, logged in;
# `sessions detail` gives its name, LUN and one address line per channel,
# each logged in. After the logout: "(no open sessions)". Then the ACL's
# info file is read over and over while ib_srp logs in and out: every read
# is whole lines of the known forms, never a torn or unknown one.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"

srp_targetcli_env
srpt_load
srp_targetcli_target
gid=$TCLI_GID iid=$TCLI_IID
run sh -c "echo $SRP_PORT > $SRPT_CFS/discovery_auth/rdma_cm_port"
info=$SRPT_CFS/0x${gid#ib.}/tpgt_1/acls/0x${iid#ib.}/info
assert_file "$info"
assert_eq "$(stat -c %a "$info")" 444 "info mode"

out=$(targetcli sessions 2>&1) || fail "targetcli sessions: $out"
log "no session: $out"
assert_eq "$out" "(no open sessions)" "targetcli sessions before the login"

srp_login "ch_count=2" || fail "add_target failed"
srp_disk >/dev/null || fail "no disk"
srp_wait_channels 2
out=$(targetcli sessions 2>&1) || fail "targetcli sessions: $out"
log "sessions: $out"
assert_eq "$(echo "$out" | grep -c 'sid: [0-9]* type: Normal session-state: LOGGED_IN')" 1 \
	"sessions lists one SRP session, logged in"
out=$(targetcli sessions detail 2>&1) || fail "targetcli sessions detail: $out"
log "sessions detail: $out"
echo "$out" | grep -qF "name: $iid (NOT AUTHENTICATED)" ||
	fail "sessions detail names the ACL"
echo "$out" | grep -q "mapped-lun: 0 backstore: block/nullb mode: rw" ||
	fail "sessions detail gives the mapped LUN"
assert_eq "$(echo "$out" | grep -c "address: $VETH0_IP (RDMA_CM)  cid: [0-9]* connection-state: LOGGED_IN")" 2 \
	"sessions detail lists both channels, logged in"
srp_logout
srp_wait_channels 0
out=$(targetcli sessions 2>&1) || fail "targetcli sessions: $out"
assert_eq "$out" "(no open sessions)" "targetcli sessions after the logout"

# Reads during logins and logouts: each line one of the info file's forms.
known='^(No active SRP session for Initiator Endpoint: .*|InitiatorName: .*|InitiatorAlias: 0x[0-9a-f]{32}|LIO Session ID: [0-9]+   SessionType: Normal|Session State: TARG_SESS_STATE_[A-Z_]+|CID: [0-9]+   Connection State: TARG_CONN_STATE_[A-Z_]+   Credits: [0-9]+ of [0-9]+|   Address [^ ]+ (RDMA_CM|IB_CM)   Port: [^ ]+/[0-9]+)$'
(
	n=0
	while [ ! -e /tmp/62-stop ]; do
		cat "$info" >/tmp/62-read || exit 2
		grep -Evq "$known" /tmp/62-read && { cp /tmp/62-read /tmp/62-bad; exit 1; }
		n=$((n + 1))
	done
	echo "$n" >/tmp/62-reads
) &
reader=$!
for i in 1 2 3 4 5; do
	srp_login "ch_count=2" || fail "add_target failed (cycle $i)"
	srp_wait_channels 2
	srp_logout
	srp_wait_channels 0
done
touch /tmp/62-stop
wait $reader
st=$?
[ $st -ne 1 ] || fail "an info read had an unknown or torn line: $(cat /tmp/62-bad)"
[ $st -eq 0 ] || fail "reading $info failed"
log "$(cat /tmp/62-reads) reads of info during 5 login/logout cycles, every line well-formed"

run targetctl clear
rmmod ib_srp
srpt_unload || fail "unload failed"
rmmod null_blk
exit 0
