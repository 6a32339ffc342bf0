#!/bin/bash
# 25 malformed IUs on a logged-in RDMA/CM channel from the test initiator:
# each gets an SRP_RSP with the right status (or, where the SRP spec gives
# no answer, none) and the channel keeps serving the next command. RDMA to
# a key the initiator never registered is a remote access error, fatal to
# the connection as RDMA defines it: the channel is released, the target
# serves the next login.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/hostile.sh"

# iu_tsk_mgmt TAG FUNCTION TASK_TAG: an SRP_TSK_MGMT (opcode 0x01) for LUN
# 0: tag 8, LUN 20, function 30, task tag 32.
iu_tsk_mgmt() {
	printf '0100000000000000%016x0000000000000000000000000000%02x00%016x0000000000000000' \
		"$1" "$2" "$3"
}
# rsp_byte HEX N: byte N of a response, as two hex digits.
rsp_byte() { echo "${1:$((2 * $2)):2}"; }

srpt_load
ti_hostile_target rdma
tur=$(iu_cmd 1 0 0 0 0 0 00000000000000000000000000000000)
ius=(
	"$tur"                                                                 # 0 TEST UNIT READY: GOOD
	"$(iu_cmd 2 5 0 0 0 0 00000000000000000000000000000000)"               # 1 TUR to a LUN that isn't there
	"$(iu_cmd 3 0 0 0 0 0xfc 00000000000000000000000000000000)"            # 2 additional CDB past the IU
	"$(iu_cmd 4 0 0x02 0 200 0 28000000000000000100000000000000)"          # 3 READ(10), 200 indirect descriptors, none sent
	"$(iu_cmd 6 0 0x11 1 1 0 00000000000000000000000000000000)"            # 4 bidirectional
	"$(iu_cmd 9 0 0 0 0 0 00000000000000000000000000000000)"               # 5 TUR
	"$(iu_tsk_mgmt 7 0x99 1)"                                              # 6 TSK_MGMT, unknown function 0x99
	"55"                                                                   # 7 unknown IU type
	"$(iu_cmd 9 0 0 0 0 0 00000000000000000000000000000000)"               # 8 TUR again: the channel still serves
	"$(iu_cmd 5 0 0x01 0 1 0 28000000000000000100000000000000 0000000000001000deadbeef00000200)" # 9 READ into an unregistered key
)
args=()
for iu in "${ius[@]}"; do args+=(--iu "$iu"); done
out=$(ti rdma --login "$(ti_initiator_port_id)" "$(ti_target_port_id)" --timeout-ms 3000 "${args[@]}")
echo "$out" | cut -c1-200
# iu_rsp K: the response to IU K, or "none".
iu_rsp() {
	local l
	l=$(echo "$out" | grep "^iu=$1 ")
	case "$l" in *result=response*) ti_field "$l" rsp ;; *) echo none ;; esac
}
# expect_status K STATUS LABEL: an SRP_RSP (0xc1) with SCSI status STATUS.
expect_status() {
	local r
	r=$(iu_rsp "$1")
	[ "$(rsp_byte "$r" 0)" = c1 ] || fail "$3: no SRP_RSP: $r"
	[ "$(rsp_byte "$r" 19)" = "$2" ] || fail "$3: status $(rsp_byte "$r" 19), wanted $2: $r"
	log "$3: SRP_RSP status $2"
}
expect_status 0 00 "TEST UNIT READY"
expect_status 1 02 "TUR to a missing LUN"
expect_status 2 02 "additional CDB past the IU"
expect_status 3 02 "indirect table longer than the IU"
expect_status 4 02 "bidirectional command"
expect_status 5 00 "TEST UNIT READY"
r=$(iu_rsp 6)
[ "$(rsp_byte "$r" 0)" = c1 ] || fail "TSK_MGMT: no SRP_RSP: $r"
# RSPVALID (flag 0x01) and response code 4, TASK MANAGEMENT FUNCTION NOT SUPPORTED.
[ $((0x$(rsp_byte "$r" 18) & 1)) = 1 ] || fail "TSK_MGMT: RSPVALID not set: $r"
[ "$(rsp_byte "$r" 39)" = 04 ] || fail "TSK_MGMT: response code $(rsp_byte "$r" 39), wanted 04: $r"
log "unknown TSK_MGMT function: not supported"
log "unknown IU type: $(iu_rsp 7 | cut -c1-64)"
expect_status 8 00 "TEST UNIT READY after the abuse"
[ "$(iu_rsp 9)" = none ] || fail "READ into an unregistered key was answered: $(iu_rsp 9)"
srp_wait_channels 0
out=$(ti rdma --login "$(ti_initiator_port_id)" "$(ti_target_port_id)" --iu "$tur")
echo "$out" | grep -q '^iu=0 result=response' || fail "no TUR answer on a new login: $out"
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
