#!/bin/bash
# 63 Persistent reservations through SRP: two ib_srp logins with different
# initiator_ext are two I_T nexuses (two initiator port ids, two SCSI
# hosts, two disks of one LUN). With an ACL for each, named by its port id
# ("0x" and 32 hex digits, then 32 hex digits alone), sg_persist registers
# a key on each, reserves Write Exclusive from one: the other nexus may
# read, and its write gets RESERVATION CONFLICT; READ FULL STATUS gives each
# registrant's SRP transport id, the initiator port id; the other nexus
# preempts, the first gets UNIT ATTENTION (registrations preempted) and is
# then the one refused. The target core builds
# an SRP transport id from the ACL's name in hex, so an ACL named by the
# initiator's IP address (RDMA/CM) cannot give one: both logins then share
# that ACL, and the target core cannot tell them apart: the second
# nexus's REGISTER of another key is refused with RESERVATION CONFLICT,
# as in-tree.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"

# sg_persist's exit status for RESERVATION CONFLICT (sg_lib.h).
PR_CONFLICT=24

# pr_disks: the LIO disks the initiator sees, one per line.
pr_disks() {
	local d
	for d in /sys/block/sd*; do
		grep -qs LIO-ORG "$d/device/vendor" && echo "/dev/${d##*/}"
	done
}
pr_disk_count_is() { [ "$(pr_disks | wc -l)" -eq "$1" ]; }
# pr_login EXT: ib_srp logs in as initiator port id EXT || port GUID; the
# new disk in PR_DISK.
pr_login() {
	local before d
	before=$(pr_disks)
	srp_login "initiator_ext=$1" || fail "add_target initiator_ext=$1 failed"
	poll_until 20 pr_disk_count_is $(($(echo "$before" | grep -c .) + 1)) ||
		fail "no new disk after the login of initiator_ext=$1"
	PR_DISK=
	for d in $(pr_disks); do
		echo "$before" | grep -qx "$d" && continue
		[ -b "$d" ] || mknod "$d" b $(tr : ' ' <"/sys/block/${d#/dev/}/dev")
		PR_DISK=$d
	done
	[ -n "$PR_DISK" ] || fail "no new disk for initiator_ext=$1"
}
# pr DISK ARGS...: sg_persist on DISK; its output logged, its status returned.
pr() {
	local disk=$1 out rc
	shift
	out=$(sg_persist --no_inquiry "$@" "$disk" 2>&1)
	rc=$?
	echo "+ sg_persist $* $disk: status $rc" >&2
	[ -z "$out" ] || echo "$out" | sed 's/^/  /' >&2
	echo "$out"
	return $rc
}
# pr_ok DISK ARGS...: sg_persist must succeed.
pr_ok() { pr "$@" >/dev/null || fail "sg_persist $* failed"; }
# pr_conflict DISK ARGS...: sg_persist must end on RESERVATION CONFLICT.
pr_conflict() {
	local rc=0
	pr "$@" >/dev/null || rc=$?
	assert_eq "$rc" "$PR_CONFLICT" "sg_persist $* on $1 (RESERVATION CONFLICT)"
}
# pr_write DISK: one WRITE(10) of block 0 through SG_IO; prints sg_raw's
# status line.
pr_write() {
	sg_raw -s 512 -i /dev/zero "$1" 2a 00 00 00 00 00 00 00 01 00 2>&1 |
		grep -i "status" | head -1
}
pr_read() {
	sg_raw -r 512 "$1" 28 00 00 00 00 00 00 00 01 00 2>&1 | grep -i "status" | head -1
}
# pr_transport_ids OUT: the SRP initiator port ids READ FULL STATUS gives
# (sg_persist prints each as 16 hex bytes under its label), 32 hex each.
pr_transport_ids() {
	echo "$1" | awk '/RDMA initiator port identifier:/ { getline; gsub(/[ \t]/, ""); print }' | sort
}
assert_write_conflict() {
	local s
	s=$(pr_write "$1")
	echo "$s" | grep -qi "reservation conflict" || fail "$2: write from $1 gave '$s', not RESERVATION CONFLICT"
}
assert_write_ok() {
	local s
	s=$(pr_write "$1")
	echo "$s" | grep -qi "good" || fail "$2: write from $1 gave '$s'"
}

srpt_load
# The target core records registrations in <dbroot>/pr (rtslib makes
# dbroot /etc/target) even without APTPL, and fails PERSISTENT RESERVE OUT
# with NOT READY when it cannot: the guest has no such directory.
run mkdir -p "$(cat "$CFS/target/dbroot")/pr"
# ACLs named by initiator port id admit logins to a GID-named target port,
# ACLs named by address to a GUID-named one.
t=
id1=$(srp_initiator_id 1)
id2=$(srp_initiator_id 2)

# pr_acl NAME: an ACL mapping lun_0.
pr_acl() {
	run mkdir "$t/acls/$1"
	run mkdir "$t/acls/$1/lun_0"
	run ln -s "$t/lun/lun_0" "$t/acls/$1/lun_0/lun_0"
}
pr_acl_del() {
	run rm "$t/acls/$1/lun_0/lun_0"
	run rmdir "$t/acls/$1/lun_0"
	run rmdir "$t/acls/$1"
}

# pr_two_nexuses ACL1 ACL2: the full flow over ACLs named ACL1 (port id 1)
# and ACL2 (port id 2).
pr_two_nexuses() {
	local a b out
	pr_acl "$1"
	pr_acl "$2"
	pr_login 1
	a=$PR_DISK
	pr_login 2
	b=$PR_DISK
	log "nexus 1 ($1): $a; nexus 2 ($2): $b"
	pr_ok "$a" --out --register --param-sark=0xa1
	pr_ok "$b" --out --register --param-sark=0xb2
	out=$(pr "$a" --in --read-keys) || fail "READ KEYS"
	echo "$out" | grep -q "0xa1" && echo "$out" | grep -q "0xb2" ||
		fail "READ KEYS does not list both keys"
	out=$(pr "$a" --in --read-full-status) || fail "READ FULL STATUS"
	assert_eq "$(pr_transport_ids "$out")" "$(printf '%s\n' "$id1" "$id2" | sort)" \
		"READ FULL STATUS: each registrant's SRP transport id is its initiator port id"

	pr_ok "$a" --out --reserve --param-rk=0xa1 --prout-type=1
	out=$(pr "$b" --in --read-reservation) || fail "READ RESERVATION"
	echo "$out" | grep -q "Key=0xa1" && echo "$out" | grep -q "Write Exclusive" ||
		fail "READ RESERVATION: not nexus 1's Write Exclusive"
	assert_write_ok "$a" "the holder"
	pr_read "$b" | grep -qi good || fail "a read from the other nexus was refused"
	assert_write_conflict "$b" "Write Exclusive held by nexus 1"
	pr_conflict "$b" --out --reserve --param-rk=0xb2 --prout-type=1

	# Nexus 2 preempts nexus 1: its reservation, and 1's key, are gone.
	pr_ok "$b" --out --preempt --param-rk=0xb2 --param-sark=0xa1 --prout-type=1
	# SPC: the preempted nexus's next command gets UNIT ATTENTION,
	# REGISTRATIONS PREEMPTED (sg_persist status 6).
	rc=0
	out=$(pr "$a" --in --read-reservation) || rc=$?
	assert_eq "$rc" 6 "the preempted nexus's next command: UNIT ATTENTION"
	echo "$out" | grep -q "Registrations preempted" || fail "the unit attention is not REGISTRATIONS PREEMPTED"
	out=$(pr "$a" --in --read-reservation) || fail "READ RESERVATION"
	echo "$out" | grep -q "Key=0xb2" || fail "READ RESERVATION after the preempt: not nexus 2's"
	out=$(pr "$a" --in --read-keys) || fail "READ KEYS"
	echo "$out" | grep -q "0xa1" && fail "the preempted key is still registered"
	assert_write_ok "$b" "the new holder"
	assert_write_conflict "$a" "Write Exclusive held by nexus 2"
	pr_ok "$b" --out --clear --param-rk=0xb2
	assert_write_ok "$a" "after CLEAR"

	srp_logout
	pr_acl_del "$1"
	pr_acl_del "$2"
}

port=$(port_gid_name)
t=$SRPT_CFS/$port/tpgt_1
srp_target "$port" ""
log "ACLs named 0x<port id>"
pr_two_nexuses "0x$id1" "0x$id2"
log "ACLs named <port id>"
pr_two_nexuses "$id1" "$id2"
srpt_cfs_clear || fail "configfs cleanup failed"
mkdir -p "$SRPT_CFS" || fail "mkdir $SRPT_CFS"

# One ACL named by the initiator's address: both logins are its sessions.
log "one ACL named by address"
port=$(port_guid_name)
t=$SRPT_CFS/$port/tpgt_1
srp_target "$port" "$VETH0_IP"
pr_login 1
a=$PR_DISK
pr_login 2
b=$PR_DISK
srp_wait_channels 4  # two logins of two channels (ib_srp: one per CPU)
kmsg_mark "63 one ACL"
pr_ok "$a" --out --register --param-sark=0xa1
pr_conflict "$b" --out --register --param-sark=0xb2
expect_dmesg_since "63 one ACL" "SPC-3 PR REGISTER: Received res_key: 0x0+ does not match existing SA REGISTER res_key: 0x0*a1" \
	"the target core took nexus 2 for nexus 1, the registrant"
pr_ok "$a" --out --clear --param-rk=0xa1
srp_logout

srp_cleanup
srpt_unload || fail "unload failed"
exit 0
