#!/bin/bash
# 06 the rxe device is removed while a target port with an enabled TPG exists
# (by both names): nothing crashes, then the TPG and ports rmdir cleanly and
# the module unloads.  (The runner then re-creates rxe0.)
. "$SRPT_ROOT/tests/vm/lib.sh"

srpt_load
guid=$(port_guid_name)
gid=$(port_gid_name)
tport_add "$guid"
tport_add "$gid"
run sh -c "echo 1 > $SRPT_CFS/$guid/tpgt_1/enable"
run sh -c "echo 1 > $SRPT_CFS/$gid/tpgt_1/enable"

kmsg_mark "06 remove"
run rxe_del
rxe_present && fail "$RXE still present after delete"
dmesg_since "06 remove"
log "after removal: $(srpt_port_dirs | tr '\n' ' ')"
# The configfs objects may stay (they belong to the user) but must still be
# readable and removable.
for n in "$guid" "$gid"; do
	if [ -d "$SRPT_CFS/$n/tpgt_1" ]; then
		cat "$SRPT_CFS/$n/tpgt_1/enable" || fail "reading enable of $n after removal failed"
		echo 0 >"$SRPT_CFS/$n/tpgt_1/enable" 2>&1 || log "disabling $n after removal failed (allowed)"
	fi
	[ -d "$SRPT_CFS/$n" ] && tport_del "$n"
done
assert_eq "$(srpt_port_dirs)" "" "port dirs after rmdir"
run rmdir "$SRPT_CFS"
run rmmod ib_srpt
srpt_loaded && fail "module still loaded"

# The device can come back and be used by a fresh load.
run rxe_add
srpt_load
tport_add "$(port_guid_name)"
tport_del "$(port_guid_name)"
srpt_unload || fail "unload failed"
exit 0
