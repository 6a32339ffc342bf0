#!/bin/bash
# 58 Transfers longer than the send queue: ib_srp with never_register=1 and
# cmd_sg_entries=255 registers no memory and sends one descriptor per
# physically contiguous run of pages (under its global rkey), up to 255 per
# command, and each descriptor costs the target at least one RDMA work
# request: a command of 255 descriptors needs more than the send queue
# holds with srp_sq_size 192 (a default login's, 128 slots plus one long
# segment, fits one of mostly short descriptors in one chain). The target
# posts such a transfer in parts of whole descriptors, each after the last
# completed. 4 MiB and 8 MiB blocks (split by the initiator into commands
# of up to 255 segments), direct and buffered, verified, and fio at 1 MiB,
# all from free pages no two of which are adjacent (io_scatter_free_pages:
# the page cache's pages, and fio's buffers in shared memory), so that
# commands have the most segments whatever the guest's memory looked like;
# the log shows transfers went in parts and no command was refused.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/io.sh"

srpt_load
io_nullb 16384
srp_target "$(port_guid_name)" "$VETH0_IP"
run sh -c "echo 192 > $SRPT_CFS/$(port_guid_name)/tpgt_1/attrib/srp_sq_size"
io_initiator never_register=1 cmd_sg_entries=255
kmsg_mark "58 login"
dev=$(io_disk max_sect=16384) || exit 1
io_scatter_free_pages 64

io_dd_large "$dev"
io_fio parts-1m --filename="$dev" --direct=1 --iomem=shm --rw=randrw --bs=1M --iodepth=4 \
	--size=$((32 * IO_SCALE))M --numjobs=2 --offset_increment=$((32 * IO_SCALE))M
expect_dmesg_since "58 login" \
	"ib_srpt: channel .*: first transfer longer than the send queue" \
	"a transfer went in parts"
dmesg_since "58 login" | grep -E "SRP_CMD refused|work request failed|for one segment" &&
	fail "refusals or queue errors"
io_scatter_end

srp_cleanup
srpt_unload || fail "unload failed"
dmesg_since "58 login" | grep -E "ib_srpt: channel .*: [0-9]+ transfers posted in parts" ||
	fail "no count of split transfers at the channel's close"
exit 0
