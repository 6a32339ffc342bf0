#!/bin/bash
# 08 `rdma dev set rxe0 name ...`: the module hears of the rename (its IB
# client's rename callback), logs it, and logs the device under its new
# name from then on (a port event: the link down and up); the target
# port names, made from GID 0, do not change. Renamed back, the same.
. "$SRPT_ROOT/tests/vm/lib.sh"

new=srptrn0
srpt_load
srpt_is_intree && skip "the in-tree module has no rename callback"
guid=$(port_guid_name)
tport_add "$guid"

kmsg_mark "08 rename"
run rdma dev set "$RXE" name "$new"
expect_dmesg_since "08 rename" "ib_srpt: device $RXE is now named $new" "the rename logged"
run ip link set "$VETH0" down
run ip link set "$VETH0" up
wait_for "port events logged under the new name" sh -c \
	"dmesg | awk '/srpt-vm-mark: 08 rename\$/ { on = 1 } on' | grep -q 'ib_srpt: $new port 1: '"
assert_dir "$SRPT_CFS/$guid"

kmsg_mark "08 back"
run rdma dev set "$new" name "$RXE"
expect_dmesg_since "08 back" "ib_srpt: device $new is now named $RXE" "the rename back logged"
wait_for "rxe0 back" rxe_present
wait_for "its port active again" sh -c "[ \"\$(cat /sys/class/infiniband/$RXE/ports/1/state)\" = '4: ACTIVE' ]"
tport_del "$guid"
srpt_unload || fail "unload failed"
exit 0
