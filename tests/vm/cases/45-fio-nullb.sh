#!/bin/bash
# 45 fio with crc32c verification over ib_srp on the null_blk LUN: 4 KiB
# random writes and 1 MiB sequential writes, queue depth 32, several jobs on
# disjoint regions, every block read back and checked. Credits (req_lim)
# are all back afterwards.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/io.sh"

srpt_load
io_nullb
srp_target "$(port_guid_name)" "$VETH0_IP"
kmsg_mark "45 login"
dev=$(io_disk) || exit 1

io_fio rand4k --filename="$dev" --direct=1 --rw=randwrite --bs=4k --iodepth=32 \
	--numjobs=4 --size=$((4 * IO_SCALE))M --offset_increment=$((4 * IO_SCALE))M
io_fio seq1m --filename="$dev" --direct=1 --rw=write --bs=1M --iodepth=32 \
	--numjobs=2 --size=$((32 * IO_SCALE))M --offset_increment=$((32 * IO_SCALE))M
# Mixed reads and writes on the same blocks, verified as they go.
io_fio mixed --filename="$dev" --direct=1 --rw=randrw --bs=4k-64k --iodepth=32 \
	--numjobs=2 --size=$((4 * IO_SCALE))M --offset_increment=$((8 * IO_SCALE))M --offset=128M
dmesg_since "45 login" | grep -E "SRP_CMD refused|work request failed" && fail "refusals or queue errors"
# Every channel ib_srp opened (one per completion vector it uses: two on
# the guest's two CPUs) idle, with every slot and credit back.
srp_channels | tee /tmp/channels
n=$(grep -c . /tmp/channels)
[ "$n" -ge 1 ] || fail "no channel listed"
[ "$(grep -c " live $RXE/1 128 128 0 0 128 " /tmp/channels)" = "$n" ] ||
	fail "credits or slots not all back when idle on every one of the $n channels"

srp_cleanup
srpt_unload || fail "unload failed"
exit 0
