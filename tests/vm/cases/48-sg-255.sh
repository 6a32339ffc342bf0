#!/bin/bash
# 48 ib_srp with cmd_sg_entries=255 (the whole table in the IU, up to 255
# descriptors): 4 MiB and 8 MiB blocks, direct and buffered, verified, and
# fio at 4 MiB; no command is refused, none needs an external table.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/io.sh"

srpt_load
io_nullb 16384
srp_target "$(port_guid_name)" "$VETH0_IP"
io_initiator cmd_sg_entries=255
kmsg_mark "48 login"
dev=$(io_disk max_sect=16384) || exit 1

io_dd_large "$dev"
io_fio sg255-4m --filename="$dev" --direct=1 --rw=randwrite --bs=4M --iodepth=4 \
	--size=$((32 * IO_SCALE))M --numjobs=2 --offset_increment=$((32 * IO_SCALE))M
dmesg_since "48 login" | grep -E "SRP_CMD refused|work request failed" && fail "refusals or queue errors"
dmesg_since "48 login" | grep "external descriptor table" && fail "an external table with 255 in-IU entries"

srp_cleanup
srpt_unload || fail "unload failed"
exit 0
