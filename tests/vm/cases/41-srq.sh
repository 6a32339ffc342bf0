#!/bin/bash
# 41 SRQ mode: use_srq=1 set before the login makes the device's shared
# receive queue (srpt_srq_size buffers); ib_srp logs in on it (the channels
# file says "srq"), fio verifies 4 KiB random and 1 MiB sequential writes;
# use_srq=0 logs the initiator out, the SRQ goes, ib_srp reconnects on own
# receive rings and I/O is verified again; writing the same value changes
# nothing, 2 is refused; then on again. Every credit back when idle; the
# device keeps its SRQ without channels; after unload rxe0 holds the QPs
# and SRQs it held before the load.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/io.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"
. "$SRPT_ROOT/tests/vm/srq.sh"

rxe_srqs() { rdma resource show "$RXE" | sed -n 's/.* srq \([0-9]*\).*/\1/p'; }
rxe_res
base_qp=$RXE_QP base_cq=$RXE_CQ base_srq=$(rxe_srqs)
log "rxe before load: qp=$base_qp cq=$base_cq srq=${base_srq:-n/a}"
# The RDMA core counts SRQs per device on every supported kernel (5.15+).
[ -n "$base_srq" ] || fail "rdma resource show $RXE gives no SRQ count"

srpt_load
fault_debugfs
io_nullb
srp_target "$(port_guid_name)" "$VETH0_IP"
assert_eq "$(cat "$(srq_attr)")" 0 "use_srq default"
assert_eq "$(srq_count)" 0 "SRQs before use_srq"
kmsg_mark "41 on"
mem_settle
slab0=$(meminfo Slab)
srq_set 1
mem_settle
log "Slab with the SRQ: +$(($(meminfo Slab) - slab0)) kB"
assert_eq "$(srq_count)" 1 "SRQs with use_srq=1"
expect_dmesg_since "41 on" "shared receive queue of 4095 buffers of 8276 bytes" "SRQ made"
assert_eq "$(rxe_srqs)" $((base_srq + 1)) "rxe0 SRQs with use_srq=1"

dev=$(io_disk "ch_count=2") || exit 1
srq_fast_reconnect
srq_expect_rq srq 2
expect_dmesg_since "41 on" "ib_srpt: login from $VETH0_IP .*, SRQ" "login on the SRQ"
io_fio rand4k --filename="$dev" --direct=1 --rw=randwrite --bs=4k --iodepth=32 \
	--numjobs=4 --size=$((4 * IO_SCALE))M --offset_increment=$((4 * IO_SCALE))M
io_fio seq1m --filename="$dev" --direct=1 --rw=write --bs=1M --iodepth=32 \
	--numjobs=2 --size=$((16 * IO_SCALE))M --offset_increment=$((16 * IO_SCALE))M
srp_channels | tee /tmp/channels
[ "$(grep -c " live $RXE/1 128 128 0 0 128 .* srq\$" /tmp/channels)" -eq 2 ] ||
	fail "credits or slots not all back when idle on the SRQ"

# The same value again: nothing happens (no channel closes).
kmsg_mark "41 same"
srq_set 1
sleep 1
dmesg_since "41 same" | grep -q "closing" && fail "writing use_srq=1 again closed channels"
srq_expect_rq srq 2
expect_errno "Invalid argument" bash -c "echo 2 > $(srq_attr)"
expect_dmesg_since "41 same" "use_srq=2 out of range" "log line of the refused value"
assert_eq "$(cat "$(srq_attr)")" 1 "use_srq after a refused write"

# Off: the initiator is logged out, comes back on own rings.
kmsg_mark "41 off"
srq_set 0
expect_dmesg_since "41 off" "closing: use_srq changed" "channels logged out"
expect_dmesg_since "41 off" "shared receive queue released" "SRQ released"
assert_eq "$(srq_count)" 0 "SRQs with use_srq=0"
srq_expect_rq own 2
io_fio rand4k-own --filename="$dev" --direct=1 --rw=randwrite --bs=4k --iodepth=32 \
	--numjobs=2 --size=$((4 * IO_SCALE))M --offset_increment=$((4 * IO_SCALE))M

# And on again, with I/O.
kmsg_mark "41 again"
srq_set 1
assert_eq "$(srq_count)" 1 "SRQs with use_srq=1 again"
srq_expect_rq srq 2
io_fio seq1m-again --filename="$dev" --direct=1 --rw=write --bs=1M --iodepth=32 \
	--numjobs=2 --size=$((8 * IO_SCALE))M --offset_increment=$((8 * IO_SCALE))M
dmesg_since "41 on" | grep -E "SRP_CMD refused|work request failed|beyond its|not reposted" &&
	fail "refusals or queue errors"
srp_channels | tee /tmp/channels
[ "$(grep -c " live $RXE/1 128 128 0 0 128 .* srq\$" /tmp/channels)" -eq 2 ] ||
	fail "credits or slots not all back when idle on the SRQ"

srp_cleanup
fault_settle
assert_eq "$(srq_count)" 1 "SRQ kept by the device with use_srq=1 and no channel"
srpt_unload || fail "unload failed"
rxe_res
log "rxe after unload: qp=$RXE_QP cq=$RXE_CQ srq=$(rxe_srqs)"
assert_eq "$RXE_QP" "$base_qp" "rxe0 QPs after unload"
# CQs are not compared: the RDMA core's CQ pool keeps the CQs channels
# took (ib_cq_pool_put) until the device goes; case 35 checks ours exactly.
assert_eq "$(rxe_srqs)" "$base_srq" "rxe0 SRQs after unload"
exit 0
