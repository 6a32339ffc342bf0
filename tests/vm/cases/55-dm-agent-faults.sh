#!/bin/bash
# case-timeout: 360
# 55 A port that refuses its Device Management agent: the fault
# points dm_port_cap (ib_modify_port() setting IsDeviceManagementSupported)
# and dm_agent (ib_register_mad_agent()) fail for rxe0 added again while
# the module is loaded. Each time the module warns and goes on without DM,
# as in-tree does: no capability bit, no agent; the port comes back up
# (veth0 down and up: PORT_ACTIVE) and the agent is registered then, and
# answers. Afterwards ib_srp logs in, I/O verifies, and the unload is clean.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"
. "$SRPT_ROOT/tests/vm/port.sh"

srpt_is_intree && skip "the fault points are this module's"
dm_setup
# agent_registered MARK: the module logged a new DM agent since MARK.
agent_registered() { dmesg_since "$1" | grep -q "$RXE port 1: device management agent registered"; }
# iou_status: the status of rxe0 port 1's answer to IOUnitInfo, else the
# tool's first line (its error).
iou_status() {
	local out st
	out=$("$DMQ" "$RXE" 1 0x10)
	st=$(sed -n 's/.*status=\(0x[0-9a-f]*\).*/\1/p' <<<"$out" | head -n 1)
	echo "${st:-${out%%$'\n'*}}"
}

srpt_load
fault_debugfs
assert_eq "$(dm_cap)" 1 "DM capability after the load"

for point in dm_port_cap dm_agent; do
	kmsg_mark "55 $point"
	fault_arm "$point" 1
	run rxe_del
	run rxe_add
	assert_eq "$(fault_injected "$point")" 1 "$point failures injected"
	expect_dmesg_since "55 $point" "ib_srpt: $RXE port 1: no device management agent \\(error -12\\); srp_daemon will not find this port" \
		"refusal logged"
	assert_eq "$(dm_cap)" 0 "DM capability without an agent ($point)"
	# The port comes back up: the agent is made then.
	run ip link set "$VETH0" down
	wait_port DOWN
	run ip link set "$VETH0" up
	wait_port ACTIVE
	# The query goes to GID 0, whose IPv6 address is still tentative when
	# the port is ACTIVE: a MAD sent then times out in umad_send, and the
	# query comes back empty (lib.sh, veth_ll_ready).
	wait_for "veth0's link-local address past DAD" veth_ll_ready
	wait_for "the agent registered" agent_registered "55 $point"
	expect_dmesg_since "55 $point" "ib_srpt: $RXE port 1: device management agent registered" \
		"agent made when the port came back"
	assert_eq "$(dm_cap)" 1 "DM capability after the port came back ($point)"
	assert_eq "$(iou_status)" 0x0000 "IOUnitInfo answered ($point)"
done

# Logins were never affected.
srp_target "$(port_guid_name)" "$VETH0_IP"
srp_login || fail "add_target failed"
dev=$(srp_disk) || fail "the initiator shows no LIO disk"
run dd if=/dev/urandom of=/tmp/pattern bs=1M count=8 status=none
run dd if=/tmp/pattern of="$dev" bs=1M oflag=direct status=none
run dd if="$dev" of=/tmp/back bs=1M count=8 iflag=direct status=none
cmp /tmp/pattern /tmp/back || fail "data read back differs"
log "8 MiB verified"
srp_cleanup
srpt_unload || fail "unload failed"
assert_eq "$(dm_cap)" 0 "DM capability after the unload"
exit 0
