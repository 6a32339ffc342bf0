#!/bin/bash
# 47 External indirect descriptor tables: ib_srp with cmd_sg_entries=1 and
# allow_ext_sg=1 puts one descriptor in the IU and the whole table in its
# memory; the target fetches it by RDMA read. 4 MiB and 8 MiB blocks, direct
# and buffered, verified; the target's log proves the external-table path ran.
# A login makes no table buffers: a command slot makes its own the first time
# it needs one. With no memory for it (fault "alloc", armed after a fresh
# login), that command is answered BUSY, the SCSI layer retries it, and the
# data still arrives.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/io.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"

srpt_load
io_nullb 16384
srp_target "$(port_guid_name)" "$VETH0_IP"
io_initiator cmd_sg_entries=1 allow_ext_sg=1 indirect_sg_entries=256
kmsg_mark "47 login"
dev=$(io_disk max_sect=16384) || exit 1

io_dd_large "$dev"
io_fio ext-4m --filename="$dev" --direct=1 --rw=write --bs=4M --iodepth=4 \
	--size=$((32 * IO_SCALE))M --numjobs=2 --offset_increment=$((32 * IO_SCALE))M
io_fio ext-8m --filename="$dev" --direct=1 --rw=randwrite --bs=8M --iodepth=4 \
	--size=$((32 * IO_SCALE))M --numjobs=1 --offset=256M
expect_dmesg_since "47 login" "ib_srpt: channel .*: first external descriptor table fetched" \
	"the external-table path ran"
dmesg_since "47 login" | grep "SRP_CMD refused" && fail "commands were refused"

kmsg_mark "47 no table buffer"
srp_logout
srp_wait_channels 0
dev=$(io_disk max_sect=16384) || exit 1
fault_debugfs
fault_read
inj0=$F_INJ_alloc
# The next allocation the module makes is the table buffer of the first
# slot whose command has an external table (nothing else on the data path
# allocates through the module's allocator).
fault_arm alloc 1
io_dd_verify "$dev" 4M 2 direct
fault_read
fault_arm alloc 0
assert_eq "$F_INJ_alloc" $((inj0 + 1)) "allocations failed"
expect_dmesg_since "47 no table buffer" \
	"ib_srpt: channel .*: no memory for a descriptor table buffer: command answered BUSY" \
	"the command without a table buffer answered BUSY"
log "a command without a table buffer was answered BUSY and retried; 4 MiB x 2 verified"

kmsg_mark "47 logout"
srp_logout
srp_wait_channels 0
expect_dmesg_since "47 logout" "ib_srpt: channel .*: [0-9]* external descriptor tables fetched" \
	"count of external tables logged"
dmesg_since "47 logout" | grep "external descriptor tables fetched"
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
