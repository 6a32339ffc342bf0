#!/bin/bash
# 60 the Debian package as an administrator uses it (README.md, "Build and
# install"): `apt install` of the package built on the host (make deb),
# DKMS builds the module for this kernel; the name ib_srpt resolves to ours
# for modprobe and for rtslib (the target core autoloads no srpt); targetcli
# configures and saves; with ib_srp logged in and I/O running, an upgrade to
# a later version replaces the file and says the old module keeps running; a
# simulated reboot (everything unloaded, `targetctl restore` as
# rtslib-fb-targetctl does at boot) brings the target back on the new
# module; `apt remove` puts the in-tree driver back. DKMS compiling the
# module under TCG is most of the case, and beside other guests it takes
# several times as long as alone: hence a case-timeout far above the other
# cases'.
# case-timeout: 3600
# host: packages
# select: named
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/io.sh"

kver=$(uname -r)
mods=/lib/modules/$kver
pkgdir=$SRPT_ROOT/build/vm/deb
saved=/etc/rtslib-fb-target/saveconfig.json

# The guest is the host's root over an overlay: a server with this kernel's
# headers (linux-headers-$kver links build/ to them) and no other kernel.
[ -f "${SRPT_VM_HEADERS:?}/.config" ] ||
	skip "no build tree for $kver in the guest's root ($SRPT_VM_HEADERS): its headers and compiler live in the trixie chroot, not on this bookworm host"
cur=$(ls "$pkgdir"/cur/srpt-cxx-dkms_*_all.deb 2>/dev/null)
next=$(ls "$pkgdir"/next/srpt-cxx-dkms_*_all.deb 2>/dev/null)
[ -f "$cur" ] && [ -f "$next" ] ||
	fail "the host built no packages (tests/vm/packages.sh; log build/vm/packages.log)"
v1=$(dpkg-deb -f "$cur" Version)
v2=$(dpkg-deb -f "$next" Version)
dpkg --compare-versions "$v2" gt "$v1" || fail "package $v2 does not sort after $v1"

# The runner forbids modprobe ib_srpt (it would load the in-tree driver);
# here that name must resolve by itself. Put the ban back whatever happens,
# and take the package out if a check stopped the case half-way.
ban=/etc/modprobe.d/srpt-vm.conf
mv "$ban" /tmp/srpt-vm.conf || fail "no $ban"
undo() {
	dpkg -s srpt-cxx-dkms >/dev/null 2>&1 && dpkg --purge srpt-cxx-dkms >/dev/null 2>&1
	mv /tmp/srpt-vm.conf "$ban"
}
trap undo EXIT
ln -sfn "$SRPT_VM_HEADERS" "$mods/build"
for c in /boot/config-*; do [ "$c" = "/boot/config-$kver" ] || rm -f "$c"; done

# No PackageKit daemon runs in the guest: its apt hook would wait 25 s for
# one on every apt-get run, then print an error.
rm -f /etc/apt/apt.conf.d/20packagekit
export DEBIAN_FRONTEND=noninteractive
srp_targetcli_env

# loaded_is WANT-VERSION WHAT: the running ib_srpt is ours, at that version.
loaded_is() {
	srpt_loaded || fail "$2: ib_srpt is not loaded"
	assert_eq "$(cat /sys/module/ib_srpt/version 2>/dev/null)" "$1" "$2: version of the loaded ib_srpt"
	modrange_save ib_srpt
}
# resolves_to DIR VERSION WHAT: modprobe's ib_srpt is the file under DIR.
resolves_to() {
	local f
	f=$(modinfo -F filename ib_srpt)
	case "$f" in "$mods/$1/"*) ;; *) fail "$3: modinfo ib_srpt names $f, not a file under $mods/$1" ;; esac
	assert_eq "$(modinfo -F version ib_srpt)" "$2" "$3: version of $f"
}
# unload_all: what a reboot clears, as far as this case loaded it.
unload_all() {
	run targetctl clear
	srpt_unload || fail "unloading ib_srpt failed"
	# The backing disk is there after a reboot; srpt_unload unloaded null_blk.
	[ -b /dev/nullb0 ] || run modprobe null_blk nr_devices=1 memory_backed=1 gb=1 bs=512 queue_mode=2
}
# session_io WHAT: ib_srp logs in, 8 MiB verified, stays logged in.
session_io() {
	local dev
	srp_login "ch_count=1" || fail "$1: add_target failed"
	dev=$(srp_disk) || fail "$1: no disk"
	io_dd_verify "$dev" 1M 8 direct
	log "$1: login and 8 MiB verified"
}
logout_all() {
	srp_logout
	srp_wait_channels 0
}
# apt_timed WHAT ARGS...: apt-get ARGS, its output in $out and its status in $st;
# logs how long it took and, when it built, how long DKMS's make ran (its
# make.log begins with the start time and was last written at the end), so
# the case's log shows where its time goes under TCG.
apt_timed() {
	local what=$1 start mk mt
	shift
	start=$(date +%s)
	out=$(apt-get "$@" 2>&1)
	st=$?
	log "$what: apt-get took $(($(date +%s) - start)) s"
	for mk in /var/lib/dkms/srpt-cxx/*/build/make.log; do
		[ -f "$mk" ] || continue
		mt=$(stat -c %Y "$mk")
		[ "$mt" -ge "$start" ] || continue
		log "$what: $mk: $(head -n 1 "$mk" | sed 's/^DKMS make.log for //'), written until $(date -d "@$mt")"
	done
}

# -- install: DKMS builds for this kernel and puts ours under updates/
cd "$pkgdir/cur" || fail "cd $pkgdir/cur"
apt_timed "install $v1" install -y "./$(basename "$cur")"
echo "$out" | tail -n 25
[ $st -eq 0 ] || fail "apt-get install of $v1 failed"
dkms status -m srpt-cxx | grep -q "^srpt-cxx/$v1, $kver, .*: installed" ||
	fail "dkms status: $(dkms status -m srpt-cxx)"
resolves_to updates "$v1" "installed"
log "installed $v1: DKMS built ib_srpt for $kver (case time $SECONDS s)"

# -- modprobe. The target core autoloads only iscsi and loopback on a
# fabric's mkdir (target_core_register_fabric): target/srpt cannot be made
# before ib_srpt is loaded, by anyone; rtslib modprobes it first (below).
run modprobe ib_srpt
loaded_is "$v1" "modprobe"
run rmmod ib_srpt
configfs_mount
run modprobe target_core_mod
expect_errno "Invalid argument" mkdir "$SRPT_CFS"
srpt_loaded && fail "mkdir $SRPT_CFS loaded ib_srpt"

# -- configure with targetcli, save (its default file, which the boot service restores)
srp_targetcli_target
gid=$TCLI_GID iid=$TCLI_IID
run targetcli saveconfig
[ -f "$saved" ] || fail "targetcli saveconfig wrote no $saved"
loaded_is "$v1" "targetcli (rtslib's modprobe)"
# rtslib does not model discovery_auth/rdma_cm_port (as for the in-tree
# driver, an RDMA/CM listener is set by hand after each restore).
run sh -c "echo $SRP_PORT > $SRPT_CFS/discovery_auth/rdma_cm_port"
session_io "configured"

# -- upgrade with the session live: the file is replaced, the running module is not
cd "$pkgdir/next" || fail "cd $pkgdir/next"
apt_timed "upgrade to $v2" install -y "./$(basename "$next")"
echo "$out" | tail -n 25
[ $st -eq 0 ] || fail "apt-get install of $v2 over $v1 failed"
echo "$out" | grep -q "ib_srpt $v1 is loaded and keeps running until it is reloaded" ||
	fail "the upgrade did not say that $v1 keeps running"
dkms status -m srpt-cxx | grep -q "^srpt-cxx/$v2, $kver, .*: installed" ||
	fail "dkms status after upgrade: $(dkms status -m srpt-cxx)"
dkms status -m srpt-cxx | grep -qF "srpt-cxx/$v1, " && fail "dkms still has $v1: $(dkms status -m srpt-cxx)"
resolves_to updates "$v2" "upgraded"
loaded_is "$v1" "after the upgrade"
io_dd_verify "$(srp_disk)" 1M 8 direct
log "upgraded to $v2 with the session live: $v1 still serves, 8 MiB verified (case time $SECONDS s)"

# -- reboot, simulated: unload, then the boot service's restore loads the new one
logout_all
unload_all
out=$(targetctl restore 2>&1) || fail "targetctl restore failed: $out"
echo "$out"
[ -z "$out" ] || fail "targetctl restore skipped part of the saved configuration"
loaded_is "$v2" "targetctl restore"
[ -d "$SRPT_CFS/0x${gid#ib.}/tpgt_1/acls/${iid}" ] ||
	[ -d "$SRPT_CFS/0x${gid#ib.}/tpgt_1/acls/0x${iid#ib.}" ] ||
	fail "restore did not bring back the ACL: $(ls "$SRPT_CFS/0x${gid#ib.}/tpgt_1/acls/")"
run sh -c "echo $SRP_PORT > $SRPT_CFS/discovery_auth/rdma_cm_port"
session_io "restored"
log "restored: case time $SECONDS s"
logout_all
unload_all

# -- remove: DKMS takes ours out, the in-tree driver is what loads
apt_timed "remove" remove -y srpt-cxx-dkms
echo "$out" | tail -n 15
[ $st -eq 0 ] || fail "apt-get remove failed"
[ -z "$(find "$mods/updates" -name 'ib_srpt.ko*' 2>/dev/null)" ] ||
	fail "ib_srpt left under updates: $(find "$mods/updates" -name 'ib_srpt.ko*')"
f=$(modinfo -F filename ib_srpt)
case "$f" in "$mods/kernel/drivers/infiniband/ulp/srpt/"*) ;; *) fail "after remove, ib_srpt is $f" ;; esac
run modprobe ib_srpt
# (An out-of-tree module taints the kernel with O and has a version file.)
assert_eq "$(cat /sys/module/ib_srpt/taint)" "" "taint flags of the ib_srpt loaded after remove"
assert_absent /sys/module/ib_srpt/version
run rmmod ib_srpt
log "removed: the in-tree ib_srpt loads again"
rmmod ib_srp 2>/dev/null
rmmod null_blk
exit 0
