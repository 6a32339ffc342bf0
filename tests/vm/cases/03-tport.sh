#!/bin/bash
# 03 the fabric's version file; target port + TPG, by GUID form and by GID
# form: create, check the TPG has enable/lun/acls, enable and disable it,
# remove.  Then both forms at once.
. "$SRPT_ROOT/tests/vm/lib.sh"

srpt_load
# As in-tree: the fabric's read-only version file (rtslib's FabricModule
# reads it) reads as an empty line.
assert_file "$SRPT_CFS/version"
assert_eq "$(stat -c %a "$SRPT_CFS/version")" 444 "srpt/version mode"
assert_eq "$(od -An -c "$SRPT_CFS/version" | tr -d ' ')" '\n' "srpt/version contents"
guid=$(port_guid_name)
gid=$(port_gid_name)
log "GID 0 of $RXE port 1: $(port_gid0); GUID form $guid; GID form $gid"
echo "$guid" | grep -Eq '^[0-9a-f]{4}(:[0-9a-f]{4}){3}$' || fail "bad GUID form '$guid' (test bug)"
echo "$gid" | grep -Eq '^0x[0-9a-f]{32}$' || fail "bad GID form '$gid' (test bug)"

check_tpg() { # check_tpg PORTNAME
	local t=$SRPT_CFS/$1/tpgt_1
	assert_file "$t/enable"
	assert_dir "$t/lun"
	assert_dir "$t/acls"
	assert_eq "$(cat "$t/enable")" 0 "$1 tpgt_1 enable initially"
	run sh -c "echo 1 > $t/enable"
	assert_eq "$(cat "$t/enable")" 1 "$1 tpgt_1 enable after writing 1"
	run sh -c "echo 0 > $t/enable"
	assert_eq "$(cat "$t/enable")" 0 "$1 tpgt_1 enable after writing 0"
}

for name in "$guid" "$gid"; do
	tport_add "$name"
	find "$SRPT_CFS/$name" -maxdepth 2 | sort
	check_tpg "$name"
	tport_del "$name"
	assert_absent "$SRPT_CFS/$name"
done

# Both names of the same port at the same time, both enabled.
tport_add "$guid"
tport_add "$gid"
run sh -c "echo 1 > $SRPT_CFS/$guid/tpgt_1/enable"
run sh -c "echo 1 > $SRPT_CFS/$gid/tpgt_1/enable"
assert_eq "$(srpt_port_dirs | sort | tr '\n' ' ')" "$(printf '%s\n' "$guid" "$gid" | sort | tr '\n' ' ')" "port dirs"
run sh -c "echo 0 > $SRPT_CFS/$guid/tpgt_1/enable"
run sh -c "echo 0 > $SRPT_CFS/$gid/tpgt_1/enable"
tport_del "$guid"
tport_del "$gid"
assert_eq "$(srpt_port_dirs)" "" "port dirs after removal"
srpt_unload || fail "unload failed"
exit 0
