#!/bin/bash
# 11 refused logins are visible at the initiator with the right SRP reason:
# no ACL for the initiator gives 0x00010006, a disabled TPG 0x00010001; and
# the target logs one line naming the initiator, reason and cause. A login
# that is then allowed succeeds.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"

srpt_load
name=$(port_guid_name)
t=$SRPT_CFS/$name/tpgt_1

# An ACL for someone else only.
srp_target "$name" 192.0.2.77
kmsg_mark "11 no acl"
srp_login && fail "add_target succeeded without an ACL for the initiator"
expect_dmesg_since "11 no acl" "REJECTED, reason 0x00010006" "initiator saw reason 0x00010006"
expect_dmesg_since "11 no acl" "ib_srpt: login from $VETH0_IP .* rejected: 0x00010006 .*no ACL" "target logged the refusal"
srp_wait_channels 0

# The right ACL, but the TPG disabled.
run mkdir "$t/acls/$VETH0_IP"
run sh -c "echo 0 > $t/enable"
kmsg_mark "11 disabled"
srp_login && fail "add_target succeeded on a disabled TPG"
expect_dmesg_since "11 disabled" "REJECTED, reason 0x00010001" "initiator saw reason 0x00010001"
expect_dmesg_since "11 disabled" "ib_srpt: login from $VETH0_IP .* rejected: 0x00010001 .*no enabled TPG" "target logged the refusal"

# Enabled: the same initiator gets in.
run sh -c "echo 1 > $t/enable"
srp_login || fail "add_target failed with ACL and TPG enabled"
srp_channels | grep -q " live " || fail "no live channel"
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
