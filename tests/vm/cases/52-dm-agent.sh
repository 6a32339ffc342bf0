#!/bin/bash
# case-timeout: 240
# 52 The Device Management agent, as srp_daemon and ibsrpdm ask
# it, through ib_umad to rxe0 port 1's own GID (build/tools/dm_query):
# loading sets the port's IsDeviceManagementSupported capability (bit 19 of
# cap_mask) and unloading clears it; ClassPortInfo, IOUnitInfo (slot 1
# present), IOControllerProfile (the service GUID, SRP's class, subclass
# and protocol, srp_max_req_size, the port's srp_max_rdma_size), the
# service entry SRP.T10:<service GUID>, and the in-tree driver's status for
# every other slot, range, attribute and SET; after the unload the MAD
# layer's own "unsupported". With --module intree the same
# answers come from Linux's ib_srpt (a drop-in replacement answers alike).
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"

. "$SRPT_ROOT/tests/vm/port.sh"

dm_setup
assert_eq "$(dm_cap)" 0 "DM capability before the load"

srpt_load
assert_eq "$(dm_cap)" 1 "DM capability after the load"
guid=$(srp_node_guid)
req=$(cat "/sys/module/$SRPT_MODNAME/parameters/srp_max_req_size")

q() {
	local out
	out=$("$DMQ" "$RXE" 1 "$@") || fail "dm_query $*: $out"
	echo "$out" | tr '\n' ' '
}
# expect WHAT OUT PATTERN...: every PATTERN (a key=value) is in OUT.
expect() {
	local what=$1 out=$2 p
	shift 2
	for p in "$@"; do
		case " $out " in *" $p "*) ;; *) fail "$what: no '$p' in: $out" ;; esac
	done
	log "$what: $out"
}

expect "ClassPortInfo" "$(q 0x01)" status=0x0000 method=0x81 base_version=1 class_version=1 \
	resp_time=20
expect "IOUnitInfo" "$(q 0x10)" status=0x0000 change_id=1 max_controllers=16 \
	controller_list=1000000000000000
for slot in 1 2; do
	expect "IOControllerProfile slot $slot" "$(q 0x11 $slot)" status=0x0000 \
		"guid=0x$guid" io_class=0x0100 io_subclass=0x609e protocol=0x0108 \
		protocol_version=1 send_queue_depth=128 rdma_read_depth=4 "send_size=$req" \
		rdma_size=65536 op_cap_mask=0x2b num_svc_entries=1 "attr_mod=0x0000000$slot"
done
out=$(q 0x11 1)
case "$out" in *"id_string=Linux SRP target"*) ;; *) fail "id string: $out" ;; esac
for slot in 3 16; do
	expect "IOControllerProfile slot $slot" "$(q 0x11 $slot)" status=0x0100
done
for slot in 0 17; do
	expect "IOControllerProfile slot $slot" "$(q 0x11 $slot)" status=0x001c
done
expect "ServiceEntries 1/0-0" "$(q 0x12 0x10000)" status=0x0000 "name=SRP.T10:$guid" "id=0x$guid"
expect "ServiceEntries 1/0-1" "$(q 0x12 0x10100)" status=0x0000
expect "ServiceEntries 1/1-0" "$(q 0x12 0x10001)" status=0x0100
expect "ServiceEntries 3/0-0" "$(q 0x12 0x30000)" status=0x0100
expect "ServiceEntries 0/0-0" "$(q 0x12 0x00000)" status=0x001c
expect "attribute 0x0013" "$(q 0x13)" status=0x000c
expect "SET IOControllerProfile" "$(q 0x11 1 2)" status=0x000c method=0x81

# The port's srp_max_rdma_size, once configfs sets it.
t=$SRPT_CFS/$(port_guid_name)/tpgt_1
run mkdir -p "$t"
run sh -c "echo 1048576 > $t/attrib/srp_max_rdma_size"
expect "IOControllerProfile after srp_max_rdma_size=1048576" "$(q 0x11 1)" rdma_size=1048576

srpt_cfs_clear >/dev/null || fail "configfs cleanup"
srpt_unload || fail "unload failed"
assert_eq "$(dm_cap)" 0 "DM capability after the unload"
# No agent now: the MAD layer answers a GET for an unregistered class
# itself, "unsupported method/attribute", with none of the agent's data.
expect "IOUnitInfo after the unload" "$(q 0x10)" status=0x000c
exit 0
