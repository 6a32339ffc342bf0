#!/bin/bash
# 61 ib_srp's queue_size=128, as administrators set it: the login is granted
# in-tree's 128 credits, so ib_srp's SCSI host queues 127 commands (it sizes
# can_queue by the login's credits, once, at login), and fio at iodepth 128
# runs verified without ib_srp ever finding itself out of credits
# (zero_req_lim unchanged). On own receive rings, then on the SRQ. With
# the in-tree driver loaded instead (SRPT_MODULE), the same but for what
# only ours shows (its log line and channels file).
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/io.sh"
. "$SRPT_ROOT/tests/vm/srq.sh"

# host_attr DEV NAME: ib_srp's attribute NAME of the SCSI host behind DEV.
host_attr() {
	local h
	h=$(readlink -f "/sys/block/${1#/dev/}/device" | grep -o 'host[0-9]*' | head -n 1)
	[ -n "$h" ] || fail "no SCSI host for $1"
	cat "/sys/class/scsi_host/$h/$2" || fail "no $2 on $h"
}

ours=1
srpt_is_intree && ours=
srpt_load
io_nullb
srp_target "$(port_guid_name)" "$VETH0_IP"
io_initiator

for rq in own srq; do
	[ $rq = own ] || srq_set 1
	kmsg_mark "61 $rq"
	dev=$(io_disk queue_size=128) || exit 1
	[ -z "$ours" ] || expect_dmesg_since "61 $rq" "ib_srpt: login from $VETH0_IP .*req_lim 128" \
		"128 credits granted ($rq)"
	assert_eq "$(host_attr "$dev" can_queue)" 127 "ib_srp's can_queue ($rq)"
	zero=$(host_attr "$dev" zero_req_lim)
	io_fio qd128-$rq --filename="$dev" --direct=1 --rw=randrw --bs=4k \
		--iodepth=128 --size=$((16 * IO_SCALE))M
	assert_eq "$(host_attr "$dev" zero_req_lim)" "$zero" \
		"ib_srp's zero_req_lim after fio at iodepth 128 ($rq)"
	if [ -n "$ours" ]; then
		srp_channels | tee /tmp/channels
		grep -q " live $RXE/1 128 128 0 0 128 " /tmp/channels ||
			fail "credits or slots not all back when idle ($rq)"
		[ $rq = own ] || grep -q " srq\$" /tmp/channels || fail "the channel is not on the SRQ"
	fi
	srp_logout
done

srp_cleanup
srpt_unload || fail "unload failed"
exit 0
