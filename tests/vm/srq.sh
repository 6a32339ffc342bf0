# Helpers for the SRQ cases (41, 42): the use_srq attribute of the TPG made by
# srp_target, the module's SRQ count and the channels' receive queue column.
# Sourced after lib.sh, srp.sh and fault.sh (and hostile.sh for the raw test
# initiator's helpers at the end).

# srq_attr: the use_srq file of tpgt_1 of the GUID-named port.
srq_attr() { echo "$SRPT_CFS/$(port_guid_name)/tpgt_1/attrib/use_srq"; }
# srq_set V: writes use_srq; fails the case if the write fails.
srq_set() { run sh -c "echo $1 > $(srq_attr)"; assert_eq "$(cat "$(srq_attr)")" "$1" "use_srq"; }
# srq_count: SRQs the module holds (debugfs ib_srpt/objects).
srq_count() { obj srqs; }
# srq_fast_reconnect: ib_srp retries a lost connection after 1 s (default 10).
srq_fast_reconnect() {
	local p
	for p in /sys/class/srp_remote_ports/port-*/reconnect_delay; do
		echo 1 >"$p" || fail "setting $p"
	done
}
# srq_expect_rq KIND N: N live channels, every one on receive queue KIND
# (srq or own: the last column of the channels file), within 30 s.
srq_expect_rq() {
	local i
	for i in $(seq 300); do
		srp_channels >/tmp/srq-ch
		[ "$(grep -c " live .* $1\$" /tmp/srq-ch)" -eq "$2" ] &&
			[ "$(wc -l </tmp/srq-ch)" -eq "$2" ] && return 0
		sleep 0.1
	done
	cat /tmp/srq-ch
	fail "expected $2 live channels on receive queue '$1'"
}

# srq_ti_target: the raw test initiator's target over RDMA/CM (hostile.sh)
# with use_srq=1; sets SRQ_IID and SRQ_TID (the login's port ids) and
# SRQ_TUR (a TEST UNIT READY IU).
srq_ti_target() {
	ti_hostile_target rdma
	srq_set 1
	SRQ_IID=$(ti_initiator_port_id)
	SRQ_TID=$(ti_target_port_id)
	SRQ_TUR=$(iu_cmd 1 0 0 0 0 0 00000000000000000000000000000000)
}
# srq_tur_answered LABEL: one login on the SRQ sends SRQ_TUR, which must be
# answered; the initiator then disconnects and the channel goes.
srq_tur_answered() {
	local out line
	out=$(ti rdma --login "$SRQ_IID" "$SRQ_TID" --timeout-ms 3000 --iu "$SRQ_TUR")
	line=$(echo "$out" | grep '^iu=0 ')
	log "$1: $line"
	[ "$(ti_field "$line" result)" = response ] || fail "$1: TUR not answered: $out"
}
