#!/bin/bash
# case-timeout: 300
# 53 Port events: rxe raises PORT_ERR and PORT_ACTIVE when its
# netdev goes down and up, and GID_CHANGE when the netdev's MAC address
# changes, which changes GID 0 (fe80::<EUI-64 of the MAC>) and so both
# names of the port. Here, with ib_srp logged in through a target port made
# under the first GUID name: veth0 goes down, gets a new MAC, comes up. The
# module logs the port down, active, and the new names; the old target port
# still serves (the session survives and 8 MiB are verified through it, and
# a new login after logout works); configfs takes the new GID name, refuses
# the old one (no such port) and the new GUID name (the port already has a
# target port of that form, named in the log; the target core turns both
# refusals into EINVAL); the DM agent answers at the new GID. The MAC is put back at the
# end, and the names with it.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/port.sh"

srpt_is_intree && skip "the log lines and configfs answers checked are this module's"
dm_setup

gid0_is_not() { [ "$(port_gid0 2>/dev/null)" != "$1" ] && port_gid0 2>/dev/null | grep -q '^fe80:'; }
# verify MiB SEEK: MiB of random data written and read back through $dev.
verify() {
	run dd if=/dev/urandom of=/tmp/pattern bs=1M count="$1" status=none
	run dd if=/tmp/pattern of="$dev" bs=1M seek="$2" oflag=direct status=none
	run dd if="$dev" of=/tmp/back bs=1M count="$1" skip="$2" iflag=direct status=none
	cmp /tmp/pattern /tmp/back || fail "data read back differs"
}

srpt_load
old_mac=$(cat "/sys/class/net/$VETH0/address")
old_gid0=$(port_gid0)
old_guid=$(port_guid_name)
old_gid=$(port_gid_name)
log "before: MAC $old_mac, GID 0 $old_gid0, names $old_guid and $old_gid"
srp_target "$old_guid" "$VETH0_IP"
srp_login || fail "add_target failed"
dev=$(srp_disk) || fail "the initiator shows no LIO disk"
verify 8 0
log "8 MiB verified before the change"

kmsg_mark "53 change"
new_mac=02:53:00:00:00:01
run ip link set "$VETH0" down
wait_port DOWN
run ip link set "$VETH0" address "$new_mac"
run ip link set "$VETH0" up
wait_port ACTIVE
wait_for "a new link-local GID 0" gid0_is_not "$old_gid0"
new_guid=$(port_guid_name)
new_gid=$(port_gid_name)
log "after: MAC $new_mac, GID 0 $(port_gid0), names $new_guid and $new_gid"
[ "$new_guid" != "$old_guid" ] || fail "GID 0 changed but the GUID name did not (test bug)"
# logged_since MARK TEXT: a kernel log line since MARK contains TEXT.
logged_since() { dmesg_since "$1" | grep -qF -- "$2"; }
wait_for "the rename logged" logged_since "53 change" "target port names now $new_guid"
dmesg_since "53 change" | grep -E "ib_srpt" | head -20
expect_dmesg_since "53 change" "ib_srpt: $RXE port 1: down" "port down logged"
expect_dmesg_since "53 change" "ib_srpt: $RXE port 1: active" "port active logged"
expect_dmesg_since "53 change" \
	"ib_srpt: $RXE port 1: GID 0 changed; target port names now $new_guid and $new_gid \\(were $old_guid and $old_gid\\)" \
	"rename logged"
expect_dmesg_since "53 change" \
	"ib_srpt: $RXE port 1: target port $old_guid, made under the old name, still serves the port" \
	"old target port reported"
n=$(dmesg_since "53 change" | grep -c "ib_srpt: $RXE port 1: GID 0 changed")
assert_eq "$n" 1 "rename lines"

# configfs: the new GID name is a port; the old one is none; the new GUID
# name's form is taken by the old target port.
tport_add "$new_gid"
tport_del "$new_gid"
expect_errno "Invalid argument" mkdir "$SRPT_CFS/$old_gid"
expect_dmesg_since "53 change" "no RDMA port has the GID \"$old_gid\"" "old GID name refused"
expect_errno "Invalid argument" mkdir "$SRPT_CFS/$new_guid"
expect_dmesg_since "53 change" "\"$new_guid\" names $RXE port 1, which already has the target port $old_guid" \
	"new GUID name refused, naming the old target port"

# DM answers follow the port to its new GID (dm_query addresses GID 0 as
# sysfs shows it now).
out=$("$DMQ" "$RXE" 1 0x10) || fail "no DM answer at the new GID: $out"
case " $(echo $out) " in *" status=0x0000 "*) ;; *) fail "IOUnitInfo at the new GID: $out" ;; esac
log "IOUnitInfo at the new GID: $(echo $out)"

# The old target port still serves: the session survived the link flap, and
# a new login after a logout is answered.
verify 8 8
log "8 MiB verified through $old_guid after the change"
srp_logout
srp_wait_channels 0
srp_login || fail "add_target after the change failed"
dev=$(srp_disk) || fail "no LIO disk after logging in again"
verify 8 16
log "8 MiB verified after logging in again"
srp_cleanup

# Back to the first MAC: the first names again.
kmsg_mark "53 back"
run ip link set "$VETH0" down
wait_port DOWN
run ip link set "$VETH0" address "$old_mac"
run ip link set "$VETH0" up
wait_port ACTIVE
wait_for "GID 0 back" sh -c "[ \"\$(cat /sys/class/infiniband/$RXE/ports/1/gids/0)\" = '$old_gid0' ]"
wait_for "the names back" logged_since "53 back" "target port names now $old_guid and $old_gid"
run mkdir -p "$SRPT_CFS"  # srp_cleanup removed the fabric's directory
tport_add "$old_gid"
tport_del "$old_gid"
srpt_unload || fail "unload failed"
exit 0
