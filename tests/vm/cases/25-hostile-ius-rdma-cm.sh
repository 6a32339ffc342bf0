#!/bin/bash
# 25 malformed IUs on a logged-in RDMA/CM channel from the test initiator:
# each gets an SRP_RSP with the right status (or, where the SRP spec gives
# no answer, none) and the channel keeps serving the next command. An IU of
# an unknown type gets no answer and a log line, and its credit comes back
# in the next SRP_RSP (req_lim_delta 2); every IU before the last is credited
# exactly once. RDMA to a key the initiator never registered is a remote
# access error, fatal to the connection as RDMA defines it: the target
# closes the channel for the failed work request ("work request failed")
# and releases it while the initiator still holds its connection (it has
# sent no DREQ), then serves the next login.
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

TMPDIR=$(mktemp -d)
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
# The tool holds its connection for 120 s after the last IU (until SIGUSR1),
# so that a channel released meanwhile was released by the target.
kmsg_mark "25 ius"
ti_bg "$TMPDIR/ius.out" rdma --login "$(ti_initiator_port_id)" "$(ti_target_port_id)" \
	--timeout-ms 3000 --hold-ms 120000 "${args[@]}"
pid=$TI_PID
closed="ib_srpt: channel $VETH0_IP \(0x$(ti_initiator_port_id)\) closing: "
# (Time-bounded: under TCG one round of this loop takes a good part of a
# second.) The IUs take about 7 s: two of them wait out the 3 s timeout.
end=$((SECONDS + 60))
while [ $SECONDS -lt $end ]; do
	dmesg_since "25 ius" | grep -q -E "$closed" && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$pid" 2>/dev/null || fail "the test initiator ended before the target closed the channel: $(cat "$TMPDIR/ius.out")"
expect_dmesg_since "25 ius" "${closed}work request failed\$" "closed for the failed RDMA write"
s=$(date +%s%N)
end=$((SECONDS + 30))
while [ $SECONDS -lt $end ]; do [ "$(srp_channels | wc -l)" -eq 0 ] && break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null || fail "the test initiator ended before the channel was released"
[ "$(srp_channels | wc -l)" -eq 0 ] || { srp_channels; fail "the channel is not released 30 s after the RDMA error"; }
log "channel released $((($(date +%s%N) - s) / 1000000)) ms after its close, the initiator still connected"
kill -USR1 "$pid"
wait "$pid" || fail "the test initiator failed: $(cat "$TMPDIR/ius.out")"
out=$(cat "$TMPDIR/ius.out")
echo "$out" | cut -c1-200
[ "$(dmesg_since "25 ius" | grep -c -E "$closed")" = 1 ] ||
	fail "the channel was closed more than once: $(dmesg_since "25 ius" | grep -E "$closed")"
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
[ "$(iu_rsp 7)" = none ] || fail "an IU of unknown type was answered: $(iu_rsp 7)"
expect_dmesg_since "25 ius" "ib_srpt: channel $VETH0_IP: IU with unknown opcode 0x55 ignored\$" \
	"unknown IU logged"
expect_status 8 00 "TEST UNIT READY after the abuse"
# req_lim_delta K: the credits the response to IU K gives back (bytes 4..7).
req_lim_delta() { echo $((0x$(iu_rsp "$1" | cut -c9-16))); }
assert_eq "$(req_lim_delta 8)" 2 "req_lim_delta of the response after the unknown IU (its own and the unknown IU's)"
sum=0
for k in 0 1 2 3 4 5 6 8; do sum=$((sum + $(req_lim_delta $k))); done
assert_eq "$sum" 9 "credits given back for IUs 0..8"
[ "$(iu_rsp 9)" = none ] || fail "READ into an unregistered key was answered: $(iu_rsp 9)"
out=$(ti rdma --login "$(ti_initiator_port_id)" "$(ti_target_port_id)" --iu "$tur")
echo "$out" | grep -q '^iu=0 result=response' || fail "no TUR answer on a new login: $out"
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
