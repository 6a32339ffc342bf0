#!/bin/bash
# 10 ib_srp logs in over RDMA/CM, sees the LUN, 64 MiB are written and read
# back verified (direct I/O, so every byte crosses the RDMA path), the
# live-channel file shows the channels, and logout releases them all.
# With --module intree the login, the I/O and the logout are checked; the
# log lines and the channel file are this module's.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"

ours=1
srpt_is_intree && ours=
srpt_load
srp_target "$(port_guid_name)" "$VETH0_IP"
kmsg_mark "10 login"
srp_login || fail "add_target failed"
dev=$(srp_disk) || fail "the initiator shows no LIO disk"
log "disk: $dev"
if [ -n "$ours" ]; then
	expect_dmesg_since "10 login" "ib_srpt: login from $VETH0_IP .* as $VETH0_IP: it_iu_len 8260" "login logged"
	srp_channels | tee /tmp/channels
	grep -q " $VETH0_IP rdma_cm live $RXE/1 128 128 " /tmp/channels ||
		fail "no live rdma_cm channel in the channel file"
fi

run dd if=/dev/urandom of=/tmp/pattern bs=1M count=64 status=none
run dd if=/tmp/pattern of="$dev" bs=1M oflag=direct status=none
run dd if="$dev" of=/tmp/back bs=1M count=64 iflag=direct status=none
cmp /tmp/pattern /tmp/back || fail "data read back differs from data written"
log "64 MiB verified"
# Small and unaligned-length I/O too (immediate data carries writes up to 8 KiB).
run dd if=/tmp/pattern of="$dev" bs=4k count=16 seek=7 oflag=direct status=none
run dd if="$dev" of=/tmp/back4k bs=4k count=16 skip=7 iflag=direct status=none
head -c 65536 /tmp/pattern >/tmp/pattern4k
cmp /tmp/pattern4k /tmp/back4k || fail "4 KiB I/O differs"

kmsg_mark "10 logout"
srp_logout
if [ -n "$ours" ]; then
	srp_wait_channels 0
	expect_dmesg_since "10 logout" "ib_srpt: channel $VETH0_IP .* closing: initiator disconnected" \
		"logout logged"
fi
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
