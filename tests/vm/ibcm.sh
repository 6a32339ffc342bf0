# Helpers for the IB/CM cases (30-3x): the test initiator srp_initiator with
# --cm ib, through the test-only module srpt_test_ibcm.ko (tests/tools/ibcm/,
# built by `make tools`). Sourced after lib.sh and srp.sh; brings in
# hostile.sh (ti_field reads srp_initiator's output lines, either CM).
#
# Target and initiator share rxe0: the REQ goes to 192.0.2.1 on RoCE v2, and
# the target's IB/CM service id is srpt_service_guid, by default the node
# GUID of rxe0 (also both halves of the target port id).

declare -F ti_field >/dev/null || . "$SRPT_ROOT/tests/vm/hostile.sh"

IBCM_KO=$SRPT_ROOT/build/tools/$(uname -r)/srpt_test_ibcm.ko
IBCM_TOOL=$SRPT_ROOT/build/tools/srp_initiator
IBCM_FILE=/sys/kernel/debug/srpt_test_ibcm/login

# ibcm_load: insmod the IB/CM initiator module; a trap of the case unloads it.
ibcm_load() {
	[ -f "$IBCM_KO" ] || fail "$IBCM_KO missing (make tools)"
	[ -x "$IBCM_TOOL" ] || fail "$IBCM_TOOL missing (make tools)"
	modprobe ib_cm || fail "modprobe ib_cm"
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	run insmod "$IBCM_KO"
	modrange_save srpt_test_ibcm
	[ -e "$IBCM_FILE" ] || fail "$IBCM_FILE missing after insmod"
}
# ibcm_cleanup: end background initiators, unload the module (trap EXIT).
ibcm_cleanup() {
	local p
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ ! -d /sys/module/srpt_test_ibcm ] || rmmod srpt_test_ibcm
}

# ibcm_iid N: initiator port id number N (32 hex): N in the high half, the
# port GUID of rxe0 in the low half, as ib_srp builds it.
ibcm_iid() { srp_initiator_id "$1"; }

# ibcm [OPTIONS...]: srp_initiator over IB/CM to the target on rxe0; the
# service id is $IBCM_SID or the node GUID. With IBCM_EXEC=1 the shell execs
# the tool: `IBCM_EXEC=1 ibcm ... &` makes $! the initiator's own PID.
ibcm() {
	local sid=${IBCM_SID:-$(srp_node_guid)}
	echo "+ srp_initiator --cm ib --addr $VETH0_IP --service-id $sid $*" >&2
	[ "${IBCM_EXEC:-0}" != 1 ] ||
		exec "$IBCM_TOOL" --cm ib --addr "$VETH0_IP" --service-id "$sid" "$@"
	"$IBCM_TOOL" --cm ib --addr "$VETH0_IP" --service-id "$sid" "$@"
}
# ibcm_login IID [OPTIONS...]: a well-formed SRP_LOGIN_REQ from IID to our
# target port id (node GUID twice).
ibcm_login() {
	local iid=$1 g
	shift
	g=$(srp_node_guid)
	ibcm --login "$iid" "$g$g" "$@"
}

# priv_bytes LINE OFFSET COUNT: COUNT bytes of priv at OFFSET, as hex.
priv_bytes() { local p; p=$(ti_field "$1" priv); echo "${p:$((2 * $2)):$((2 * $3))}"; }

# ibcm_expect_reject LINE REASON: an SRP_LOGIN_REJ with REASON in a CM REJ
# of reason 28 (consumer defined).
ibcm_expect_reject() {
	assert_eq "$(ti_field "$1" result)" rejected "result"
	assert_eq "$(ti_field "$1" cm_status)" 28 "CM reject reason (consumer defined)"
	assert_eq "$(priv_bytes "$1" 0 1)" c2 "SRP_LOGIN_REJ opcode"
	assert_eq "$(ti_field "$1" reason)" "$2" "SRP_LOGIN_REJ reason"
}

# srp_channel_states: "cm state" of every live channel line.
srp_channel_states() { srp_channels | awk '{ print $3, $4 }'; }

# wait_channels_max N SECS: until at most N channels are listed.
wait_channels_max() {
	local i
	for i in $(seq $((${2:-30} * 10))); do
		[ "$(srp_channels | wc -l)" -le "$1" ] && return 0
		sleep 0.1
	done
	srp_channels
	fail "still more than $1 channels after ${2:-30} s"
}
