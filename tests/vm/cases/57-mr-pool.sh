#!/bin/bash
# 57 RDMA through memory registrations (ib_core's force_mr, as iWARP always
# needs them): each remote segment of a command takes a registration from
# its QP's pool, which holds a third of the send queue's depth (rdma_rw
# reserves three work requests per context: register, move, invalidate).
# With srp_sq_size 16 the pool holds 5: a command of 4 segments moves its
# data (a write, then a read), one of 8 can never be mapped and is
# answered CHECK CONDITION with a log line, and the channel goes on.
# (rdma_rw answers an empty pool with -EAGAIN, which the target core, if
# handed it, retries at once and without end: the command would never end,
# and neither would the channel's release, a TPG drop, or rmmod.)
# The test initiator's descriptors keyed 0xfffffff0 name its data buffer
# (tests/tools/initiator.h, TI_DATA_KEY).
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/hostile.sh"

# rm_module_tree M: M and every module that holds it, holders first.
rm_module_tree() {
	local h
	[ -d "/sys/module/$1" ] || return 0
	for h in /sys/module/"$1"/holders/*; do
		[ -e "$h" ] && { rm_module_tree "${h##*/}" || return 1; }
	done
	rmmod "$1"
}
# rdma_stack_reload [IB_CORE-PARAMETERS]: ib_core loaded afresh with them,
# and rxe0 on it.
rdma_stack_reload() {
	if rxe_present; then rxe_del || return 1; fi
	rm_module_tree ib_core || return 1
	modprobe ib_core "$@" && rxe_add
}
# Whatever happens, the next case gets ib_core as it was (without force_mr).
restore() { srpt_unload >/dev/null 2>&1; rdma_stack_reload >/dev/null 2>&1; }
trap restore EXIT

srpt_unload || fail "unload failed"
rdma_stack_reload force_mr=1 || fail "ib_core with force_mr=1 and rxe0 on it"
srpt_load
ti_hostile_target rdma
run sh -c "echo 16 > $SRPT_CFS/$(ti_port_name rdma)/tpgt_1/attrib/srp_sq_size"

# cmd TAG OPCODE DIR N: a 10-byte READ/WRITE of N x 4 KiB at LBA 0, its
# data in N segments of the test initiator's buffer, 8 KiB apart (an in-IU
# indirect table; DIR out or in).
cmd() {
	local tag=$1 op=$2 dir=$3 n=$4 i tail fmt out=0 in=0
	tail=$(printf '%016x%08x%08x%08x' 0 0 $((16 * n)) $((4096 * n)))
	for i in $(seq 0 $((n - 1))); do tail+=$(printf '%016xfffffff0%08x' $((8192 * i)) 4096); done
	if [ "$dir" = out ]; then fmt=0x20 out=$n; else fmt=0x02 in=$n; fi
	iu_cmd "$tag" 0 "$fmt" "$out" "$in" 0 "$(printf '%02x000000000000%04x00000000000000' "$op" $((8 * n)))" "$tail"
}
TMPDIR=$(mktemp -d)
kmsg_mark "57 mr"
out=$(ti rdma --login "$(ti_initiator_port_id)" "$(ti_target_port_id)" --timeout-ms 20000 \
	--data-bytes $((8192 * 8)) \
	--iu "$(cmd 1 0x2a out 4)" --iu "$(cmd 2 0x2a out 8)" --iu "$(cmd 3 0x28 in 8)" \
	--iu "$(cmd 4 0x28 in 4)" --iu "$(iu_cmd 5 0 0 0 0 0 00000000000000000000000000000000)")
echo "$out" | cut -c1-120
# expect_status K STATUS LABEL: IU K was answered by an SRP_RSP with SCSI
# status STATUS.
expect_status() {
	local l r
	l=$(echo "$out" | grep "^iu=$1 ")
	case "$l" in *result=response*) ;; *) fail "$3: no answer: $l" ;; esac
	r=$(ti_field "$l" rsp)
	[ "${r:0:2}" = c1 ] || fail "$3: no SRP_RSP: $r"
	[ "${r:38:2}" = "$2" ] || fail "$3: status ${r:38:2}, wanted $2: $r"
	log "$3: SRP_RSP status $2"
}
expect_status 0 00 "WRITE of 4 segments (4 registrations of 5)"
expect_status 1 02 "WRITE of 8 segments"
expect_status 2 02 "READ of 8 segments"
expect_status 3 00 "READ of 4 segments"
expect_status 4 00 "TEST UNIT READY after them"
expect_dmesg_since "57 mr" "needs more memory registrations \(8 remote segments\) than its queue pair holds" \
	"the refusal logged"
srp_wait_channels 0

srpt_unload || fail "unload failed"
exit 0
