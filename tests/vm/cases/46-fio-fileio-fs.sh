#!/bin/bash
# 46 The file-backed LUN (fileio backstore on a tmpfs file): fio with crc32c
# verification at 4 KiB random (QD32, 4 jobs) and 1 MiB sequential; then
# mkfs.ext4, files written, unmounted, fsck -f clean, remounted and compared.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/io.sh"

srpt_load
io_fileio 256
srp_target "$(port_guid_name)" "$VETH0_IP"
kmsg_mark "46 login"
dev=$(io_disk) || exit 1

io_fio rand4k --filename="$dev" --direct=1 --rw=randwrite --bs=4k --iodepth=32 \
	--numjobs=4 --size=$((4 * IO_SCALE))M --offset_increment=$((4 * IO_SCALE))M
io_fio seq1m --filename="$dev" --direct=1 --rw=write --bs=1M --iodepth=32 \
	--numjobs=2 --size=$((32 * IO_SCALE))M --offset_increment=$((32 * IO_SCALE))M
io_mkfs_check "$dev"
dmesg_since "46 login" | grep -E "SRP_CMD refused|work request failed" && fail "refusals or queue errors"

srp_cleanup
srpt_unload || fail "unload failed"
io_fileio_cleanup
exit 0
