#!/bin/bash
# 12 the same initiator logs in again while logged in: a SCSI host reset
# makes ib_srp reconnect (its first channel logs in with SINGLE), and the
# target ends with the new channels only (the old ones released, by the
# initiator's disconnect or by the SINGLE takeover), I/O still verified.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"

srpt_load
srp_target "$(port_guid_name)" "$VETH0_IP"
srp_login "ch_count=1" || fail "add_target failed"
dev=$(srp_disk) || fail "no disk"
srp_wait_channels 1
before=$(srp_channels)
kmsg_mark "12 reset"
sg_reset --host "$dev" || fail "sg_reset --host failed"
expect_dmesg_since "12 reset" "ib_srpt: login from $VETH0_IP" "relogin"
srp_wait_channels 1
after=$(srp_channels)
log "before: $before"
log "after:  $after"
expect_dmesg_since "12 reset" "ib_srpt: channel $VETH0_IP .* closing" "old channel released"
run dd if=/dev/urandom of=/tmp/p bs=1M count=4 status=none
run dd if=/tmp/p of="$dev" bs=1M oflag=direct status=none
run dd if="$dev" of=/tmp/b bs=1M count=4 iflag=direct status=none
cmp /tmp/p /tmp/b || fail "data differs after relogin"
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
