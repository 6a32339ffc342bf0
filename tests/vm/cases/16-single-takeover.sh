#!/bin/bash
# 16 a SINGLE login of an I_T nexus that already has a live channel
# terminates it: ib_srp is logged in, then tests/tools/srp_login logs in
# with the same initiator port id and gets rsp_flags TERMINATED, and the
# target releases ib_srp's channel ("replaced by a SINGLE login"). A MULTI
# login next to a live channel gets MAINTAINED and leaves it alone. (ib_srp
# itself always disconnects before it logs in again, so it cannot show this.)
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"

tool=$SRPT_ROOT/build/tools/srp_login
[ -x "$tool" ] || fail "$tool missing (make tools)"
srpt_load
srp_target "$(port_guid_name)" "$VETH0_IP"
srp_login "ch_count=1" || fail "add_target failed"
srp_disk >/dev/null || fail "no disk"
srp_wait_channels 1
iid=$(srp_initiator_id)
guid=$(srp_node_guid)

# MULTI next to ib_srp's channel: both stay.
out=$("$tool" "$VETH0_IP" "$SRP_PORT" "$iid" "$guid" multi 2) || fail "MULTI login: $out"
log "MULTI: $out"
case "$out" in *"rsp_flags=0x02"*) ;; *) fail "MULTI login not answered MAINTAINED: $out" ;; esac
sleep 3
srp_wait_channels 1

# SINGLE: ib_srp's channel is terminated.
kmsg_mark "16 single"
out=$("$tool" "$VETH0_IP" "$SRP_PORT" "$iid" "$guid" single 2) || fail "SINGLE login: $out"
log "SINGLE: $out"
case "$out" in *"rsp_flags=0x01"*) ;; *) fail "SINGLE login not answered TERMINATED: $out" ;; esac
expect_dmesg_since "16 single" "ib_srpt: channel $VETH0_IP .* closing: replaced by a SINGLE login" "old channel terminated"
expect_dmesg_since "16 single" "ib_srpt: login from .* older channels terminated" "takeover logged"
srp_logout
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
