#!/bin/bash
# 05 an rxe device added after the module is loaded gets its ports: load with
# no RDMA device, add rxe0, create target ports by both of its names.
. "$SRPT_ROOT/tests/vm/lib.sh"

run rxe_del
rxe_present && fail "$RXE still present after delete"
kmsg_mark "05 load"
srpt_load
# No RDMA device: no port, and any port name is refused.
assert_eq "$(srpt_port_dirs)" "" "port dirs with no RDMA device"
expect_errno "Invalid argument" mkdir "$SRPT_CFS/0000:0000:0000:0001"

kmsg_mark "05 add"
run rxe_add
guid=$(port_guid_name)
gid=$(port_gid_name)
log "new $RXE port 1: $guid / $gid"
if srpt_is_intree; then
	log "in-tree module: not checking for its port log line"
else
	expect_dmesg_since "05 add" "ib_srpt.*$guid|$guid.*ib_srpt" "module logged the new port (GUID form)"
	# GID form as the configfs name (0x...), bare hex, or fe80:... notation.
	expect_dmesg_since "05 add" "$gid|${gid#0x}|$(port_gid0)" "module logged the new port (GID form)"
fi
tport_add "$guid"
run sh -c "echo 1 > $SRPT_CFS/$guid/tpgt_1/enable"
tport_add "$gid"
run sh -c "echo 0 > $SRPT_CFS/$guid/tpgt_1/enable"
tport_del "$guid"
tport_del "$gid"
srpt_unload || fail "unload failed"
exit 0
