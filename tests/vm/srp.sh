# Helpers for the login and I/O cases: a LUN served by the module under test
# and the in-kernel initiator ib_srp logging in to it over RDMA/CM on rxe0.
# Sourced after lib.sh.
#
# Target and initiator share rxe0 (rxe loops traffic back), so the initiator's
# address is the target's: 192.0.2.1, and its port id is initiator_ext ||
# the port GUID of rxe0.

SRP_PORT=5555
BACKSTORE=/sys/kernel/config/target/core/iblock_0/nullb
SRP_SYSFS=/sys/class/infiniband_srp/srp-$RXE-1

# srp_node_guid: the service GUID the module adopted (node GUID of rxe0), 16 hex.
srp_node_guid() { cat "/sys/class/infiniband/$RXE/node_guid" | tr -d :; }
# srp_initiator_id [EXT]: the 128-bit initiator port id ib_srp sends, as 32 hex.
srp_initiator_id() {
	printf '%016x%s' "${1:-0}" "$(port_gid0 | cut -d: -f5-8 | tr -d :)"
}

# srp_nullb [NULL_BLK-PARAMS...]: /dev/nullb0, 1 GiB, memory backed (so
# data can be verified), unless it is there already.
srp_nullb() {
	[ -b /dev/nullb0 ] || run modprobe null_blk nr_devices=1 memory_backed=1 gb=1 \
		bs=512 queue_mode=2 "$@"
	[ -b /dev/nullb0 ] || fail "no /dev/nullb0"
}

# srp_backstore [MB]: srp_nullb's device as an iblock backstore.
srp_backstore() {
	local mb=${1:-128}
	srp_nullb
	mkdir -p "$BACKSTORE" || fail "mkdir $BACKSTORE"
	echo udev_path=/dev/nullb0 >"$BACKSTORE/control" || fail "backstore control"
	echo 1 >"$BACKSTORE/enable" || fail "backstore enable"
}

# srp_target PORTNAME ACLNAME [no-enable]: TPG with lun_0 on the backstore,
# an ACL mapping it, enabled, and the RDMA/CM listener on $SRP_PORT.
srp_target() {
	local t=$SRPT_CFS/$1/tpgt_1
	[ -d "$BACKSTORE" ] || srp_backstore
	run mkdir -p "$t"
	run mkdir "$t/lun/lun_0"
	run ln -s "$BACKSTORE" "$t/lun/lun_0/nullb"
	if [ -n "$2" ]; then
		run mkdir "$t/acls/$2"
		run mkdir "$t/acls/$2/lun_0"
		run ln -s "$t/lun/lun_0" "$t/acls/$2/lun_0/lun_0"
	fi
	[ "$3" = no-enable ] || run sh -c "echo 1 > $t/enable"
	run sh -c "echo $SRP_PORT > $SRPT_CFS/discovery_auth/rdma_cm_port"
}

# srp_targetcli_env: what targetcli-fb needs in the guest (a HOME for its
# preferences, the system bus it connects to).
srp_targetcli_env() {
	export HOME=/root
	mkdir -p /run/dbus "$HOME"
	dbus-daemon --system --fork --nopidfile || fail "dbus-daemon"
}

# srp_targetcli_target: with targetcli-fb alone, as its users do: the
# null_blk LUN as block backstore "nullb", the GID-named target port
# ($TCLI_GID, "ib.<GID 0>"), the LUN, and an ACL named by the initiator
# port id ($TCLI_IID, "ib.<id>"). rtslib modprobes ib_srpt if target/srpt
# does not exist yet: load the module under test first.
srp_targetcli_target() {
	srp_nullb
	TCLI_GID=ib.$(port_gid0 | tr -d :)
	TCLI_IID=ib.$(srp_initiator_id)
	run targetcli /backstores/block create name=nullb dev=/dev/nullb0
	run targetcli /srpt create "$TCLI_GID"
	run targetcli "/srpt/$TCLI_GID/luns" create /backstores/block/nullb
	run targetcli "/srpt/$TCLI_GID/acls" create "$TCLI_IID"
}

srp_initiator_load() { modprobe -a ib_srp sd_mod || fail "modprobe ib_srp sd_mod"; }

# srp_login [EXTRA-OPTIONS]: add_target; returns add_target's status.
srp_login() {
	local g
	g=$(srp_node_guid)
	srp_initiator_load
	echo "+ add_target id_ext=$g,ioc_guid=$g,dest=$VETH0_IP:$SRP_PORT${1:+,$1}"
	echo "id_ext=$g,ioc_guid=$g,dest=$VETH0_IP:$SRP_PORT${1:+,$1}" >"$SRP_SYSFS/add_target"
}

# srp_rxe_objects: how many QPs and CQs ib_srp holds on rxe0 (the RDMA
# core names a kernel owner in brackets: "comm [ib_srp]").
srp_rxe_objects() {
	{ rdma resource show qp link "$RXE/1"; rdma resource show cq dev "$RXE"; } 2>/dev/null |
		grep -c 'comm \[ib_srp\]'
}

# srp_logout: delete every SRP remote port; waits until they are gone and
# ib_srp has freed its QPs and CQs. The remote port leaves sysfs before
# srp_remove_target() frees the channels, so a baseline of rxe0's objects
# taken at that moment can still count a channel of ib_srp's, and a later
# count then finds fewer QPs and CQs than the baseline.
srp_logout() {
	srp_delete_remote_ports ||
		fail "SRP remote ports still present $((10 * WAIT_SCALE)) s after delete"
	poll_until 10 srp_rxe_idle ||
		fail "ib_srp still holds $(srp_rxe_objects) QPs/CQs on $RXE $((10 * WAIT_SCALE)) s after logout"
}
# srp_rxe_idle: ib_srp holds no QP or CQ on rxe0.
srp_rxe_idle() { [ "$(srp_rxe_objects)" = 0 ]; }

# srp_disk_timeout NAME: the SCSI command timeout of disk NAME. sd's 30 s
# assumes a kernel that moves a few thousand commands a second; the debug
# kernel (KASAN, lockdep, kmemleak under TCG) moves 30-50 4 KiB writes a
# second, in-tree ib_srpt and ours alike (case 45 runs on both), so 32
# queued 1 MiB writes outlive 30 s there and the SCSI
# error handler aborts them: an I/O error no driver caused. On a kernel with
# KASAN the timeout is 300 s; elsewhere sd's default stays.
srp_disk_timeout() {
	kernel_is_debug || return 0
	echo 300 >"/sys/block/$1/device/timeout" || fail "setting the SCSI timeout of $1"
}

# srp_disk: /dev/sdX of the (first) LIO disk the initiator sees (waits up to 20 s).
srp_disk() {
	local i d
	for i in $(seq 200); do
		for d in /sys/block/sd*; do
			[ -e "$d/device/vendor" ] || continue
			grep -q LIO-ORG "$d/device/vendor" 2>/dev/null || continue
			d=/dev/${d##*/}
			[ -b "$d" ] || mknod "$d" b $(tr : ' ' <"/sys/block/${d##*/}/dev")
			srp_disk_timeout "${d##*/}"
			echo "$d"
			return 0
		done
		sleep 0.1
	done
	return 1
}

# srp_channels: live channel lines of the module's debugfs file.
srp_channels() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	grep -v '^#' /sys/kernel/debug/ib_srpt/channels
}
# srp_wait_channels N: until exactly N channels are listed (10 s, times
# WAIT_SCALE).
srp_wait_channels() {
	poll_until 10 srp_channel_count_is "$1" && return 0
	srp_channels
	fail "expected $1 channels"
}
# srp_channel_count_is N: the module lists exactly N live channels.
srp_channel_count_is() { [ "$(srp_channels | wc -l)" -eq "$1" ]; }
# srp_login_accepted_since MARK [SESSION]: the target logged an accepted
# login since MARK (of session SESSION, a regex; any if not given):
# evidence that outlasts a channel too short-lived to poll for.
srp_login_accepted_since() {
	dmesg_since "$1" | grep -qE "ib_srpt: login from .* as ${2:-[^ ]+}: it_iu_len"
}

# srp_cleanup: initiator out, configfs and backstore down, null_blk unloaded.
srp_cleanup() {
	srp_logout
	initiator_clear || fail "unloading ib_srp failed"
	srpt_cfs_clear || fail "configfs cleanup failed"
	backstores_clear || fail "backstore cleanup failed"
}
