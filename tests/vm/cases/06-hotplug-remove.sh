#!/bin/bash
# 06 the rxe device is removed while a target port with an enabled TPG exists
# (by both names): nothing crashes, then the TPG and ports rmdir cleanly and
# the module unloads.  (The runner then re-creates rxe0.) Our module's
# contract: the target ports stay in configfs with their TPGs
# disabled, each named in a log line, and enabling a TPG again (after the
# user disabled it) is refused with ENODEV and a log line naming the
# removed port.
. "$SRPT_ROOT/tests/vm/lib.sh"

srpt_load
guid=$(port_guid_name)
gid=$(port_gid_name)
tport_add "$guid"
tport_add "$gid"
run sh -c "echo 1 > $SRPT_CFS/$guid/tpgt_1/enable"
run sh -c "echo 1 > $SRPT_CFS/$gid/tpgt_1/enable"

intree=0
srpt_is_intree && intree=1
kmsg_mark "06 remove"
run rxe_del
rxe_present && fail "$RXE still present after delete"
dmesg_since "06 remove"
log "after removal: $(srpt_port_dirs | tr '\n' ' ')"
# The configfs objects may stay (they belong to the user) but must still be
# readable and removable.
for n in "$guid" "$gid"; do
	if [ $intree = 0 ]; then
		expect_dmesg_since "06 remove" \
			"ib_srpt: $RXE port 1 removed; target port $n stays in configfs, disabled, until it is removed\$" \
			"removal of the port of $n logged"
		assert_dir "$SRPT_CFS/$n/tpgt_1"
		# The enable file shows the target core's flag, which the
		# removal cannot clear (still 1), and the core passes a write
		# to us only when it changes that flag: disable, then enable.
		run sh -c "echo 0 > $SRPT_CFS/$n/tpgt_1/enable"
		kmsg_mark "06 re-enable $n"
		expect_errno "No such device" bash -c "echo 1 > $SRPT_CFS/$n/tpgt_1/enable"
		expect_dmesg_since "06 re-enable $n" \
			"ib_srpt: cannot enable a TPG of $n: $RXE port 1 has been removed\$" \
			"re-enable of $n refused"
		assert_eq "$(cat "$SRPT_CFS/$n/tpgt_1/enable")" 0 "enable of $n after the refused re-enable"
	fi
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
