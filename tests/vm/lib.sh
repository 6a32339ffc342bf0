# Helpers for the guest test cases (tests/vm/cases/*.sh) and the guest runner
# (tests/vm/guest.sh).  Sourced by bash, inside the guest, as root.
#
# A case exits 0 = pass, 77 = skip, anything else = fail, and prints its own
# diagnostics; `fail` and `skip` below do both.  Every case starts with the
# module under test unloaded and rxe0 present on veth0 (the runner restores
# that state before each case and cleans up after it), and loads the module
# itself with srpt_load.
#
# Environment (set by the runner, see tests/vm/run.sh):
#   SRPT_MODULE  path of the ib_srpt.ko under test (host path, visible in the
#                guest through the 9p root)
#   SRPT_ROOT    the checkout
#   SRPT_VM_OUT  the run's output directory (read-write share)

SRPT_MODNAME=ib_srpt
CFS=/sys/kernel/config
SRPT_CFS=$CFS/target/srpt
# Addresses from TEST-NET-1 on a veth pair inside the guest: nothing leaves it.
VETH0=veth0 VETH1=veth1
VETH0_IP=192.0.2.1 VETH1_IP=192.0.2.2
RXE=rxe0

# ---------------------------------------------------------------- reporting
log() { echo "# $*"; }
# Inside a command substitution stdout is the caller's variable: the line
# goes to stderr there (the case's log), or the reason would be lost with
# the subshell and the case would end on the caller's bare `|| exit 1`.
fail() {
	if [ "$BASH_SUBSHELL" -gt 0 ]; then echo "FAIL: $*" >&2; else echo "FAIL: $*"; fi
	exit 1
}
skip() {
	echo "SKIP: $*"
	exit 77
}
# assert_eq ACTUAL EXPECTED WHAT
assert_eq() {
	if [ "$1" != "$2" ]; then
		fail "$3: got '$1', expected '$2'"
	fi
	log "$3 = '$1' (ok)"
}
assert_dir() { [ -d "$1" ] || fail "missing directory $1"; }
assert_file() { [ -f "$1" ] || fail "missing file $1"; }
assert_absent() { [ ! -e "$1" ] || fail "$1 exists but should not"; }
# run CMD...: echo the command, run it, fail the case if it fails.
run() {
	echo "+ $*"
	"$@" || fail "command failed (status $?): $*"
}
# expect_errno ERRTEXT CMD...: the command must fail with the given strerror
# text in its message (e.g. "Invalid argument").
expect_errno() {
	local want=$1 out st
	shift
	echo "+ $* (expecting: $want)"
	out=$("$@" 2>&1)
	st=$?
	[ -z "$out" ] || echo "$out"
	[ $st -ne 0 ] || fail "succeeded but should have failed with '$want': $*"
	case "$out" in
	*"$want"*) ;;
	*) fail "failed, but not with '$want': $*" ;;
	esac
}

# ---------------------------------------------------------------- kernel log
# Markers written into the kernel log let a case (and the runner) look at
# exactly the lines logged since a given point.  dmesg does not wrap: the
# guest boots with log_buf_len=16M.
kmsg_mark() { echo "srpt-vm-mark: $*" >/dev/kmsg; }
# dmesg_since MARK: kernel log lines after the (last) marker MARK.
dmesg_since() {
	dmesg | awk -v m="srpt-vm-mark: $1" '
		index($0, m) && substr($0, index($0, m)) == m { n = 0; delete buf; next }
		{ buf[n++] = $0 }
		END { for (i = 0; i < n; i++) print buf[i] }'
}
# expect_dmesg_since MARK ERE WHAT: some line since MARK matches ERE.
expect_dmesg_since() {
	local lines
	lines=$(dmesg_since "$1" | grep -E -- "$2")
	[ -n "$lines" ] || fail "$3: no kernel log line matching /$2/ since mark '$1'"
	log "$3: $(echo "$lines" | head -n 1)"
}
# Kernel bug reports in stdin (patterns: tests/vm/kernel-reports.txt);
# prints "PATTERN<TAB>first matching line" per pattern found, in the order of
# the patterns file.
kernel_report_patterns() { grep -v -e '^#' -e '^$' "${SRPT_ROOT:?}/tests/vm/kernel-reports.txt"; }
kernel_reports() {
	local tmp p l
	tmp=$(mktemp)
	# One grep over all patterns first (fast path: a clean log), then one per
	# pattern only for the lines that matched, to name the kinds found.
	# (Our own marker lines carry case names: never count them.)
	grep -v -e 'srpt-vm-mark: ' -e 'srpt-vm-init: ' | grep -E -- "$(kernel_report_patterns)" >"$tmp"
	kernel_report_patterns | while IFS= read -r p; do
		[ -s "$tmp" ] || break
		l=$(grep -E -m 1 -- "$p" "$tmp") && printf '%s\t%s\n' "$p" "$l"
	done
	rm -f "$tmp"
}

# ---------------------------------------------------------------- kmemleak
# Where the kernel has kmemleak (the debug kernel), the runner scans after
# each case and fails it on any unreferenced object allocated through one of
# our modules (tests/vm/guest.sh).  kmemleak prints a backtrace with %pS when
# its file is read: a module unloaded by then shows as raw addresses, so the
# places our modules were loaded at are recorded (modrange_save) and raw
# addresses resolved against them.
KMEMLEAK=/sys/kernel/debug/kmemleak
KMEMLEAK_OURS='ib_srpt|srpt_test_ibcm|srpt_vm_selftest'
MODRANGES=/tmp/srpt-vm-modranges
# modrange_save NAME: appends "NAME START END" (hex, 16 digits) of the loaded
# module NAME (its /proc/modules base and total size: the text lies inside).
modrange_save() {
	local name size base
	read -r name size _ _ _ base _ <<<"$(awk -v m="$1" '$1 == m' /proc/modules)"
	[ -n "$base" ] && [ "$base" != 0x0000000000000000 ] || return 0
	printf '%s %016x %016x\n' "$name" "$((base))" "$((base + size))" >>"$MODRANGES"
}
# kmemleak_scan FILE: reports found now into FILE, then forgets them.  An
# object is reported once it is older than 5 s and unchanged between two
# scans (mm/kmemleak.c: MSECS_MIN_AGE, the checksum), so scan twice.
kmemleak_scan() {
	echo scan >"$KMEMLEAK" && echo scan >"$KMEMLEAK" && cat "$KMEMLEAK" >"$1" &&
		echo clear >"$KMEMLEAK"
}
# kmemleak_ours FILE: the records of FILE (kmemleak's report) whose backtrace
# runs through one of our modules; a raw address inside a recorded module
# range gets " [NAME, unloaded]" appended.
kmemleak_ours() {
	local line rec= ours=0 r name lo hi addr
	local -a ranges=()
	[ ! -f "$MODRANGES" ] || mapfile -t ranges <"$MODRANGES"
	while IFS= read -r line; do
		case $line in
		"unreferenced object "*)
			[ $ours = 0 ] || printf '%s' "$rec"
			rec= ours=0 ;;
		esac
		if [[ $line =~ \[($KMEMLEAK_OURS)\]$ ]]; then
			ours=1
		elif [[ $line =~ ^\ +0x([0-9a-f]{16})$ ]]; then
			addr=${BASH_REMATCH[1]}
			for r in "${ranges[@]}"; do
				read -r name lo hi <<<"$r"
				if [[ ! $addr < $lo && $addr < $hi ]]; then
					line+=" [$name, unloaded]"
					ours=1
					break
				fi
			done
		fi
		rec+=$line$'\n'
	done <"$1"
	[ $ours = 0 ] || printf '%s' "$rec"
}

# ---------------------------------------------------------------- kernel
# kernel_is_debug: the guest runs a kernel with KASAN (the project's debug
# kernel: KASAN, lockdep, kmemleak under TCG), where the kernel's own work
# runs one to two orders of magnitude slower. Timeouts that stand for "an
# answer that never comes" are scaled there, never the checks themselves.
# Decided once, when lib.sh is sourced.
if zgrep -q '^CONFIG_KASAN=y' /proc/config.gz 2>/dev/null; then KERNEL_DEBUG=1; else KERNEL_DEBUG=0; fi
kernel_is_debug() { [ "$KERNEL_DEBUG" = 1 ]; }
# WAIT_SCALE: how many times longer a wait for an expected event may take
# (10 on the debug kernel, where starting a test initiator alone took 15 s
# in case 31).
if kernel_is_debug; then WAIT_SCALE=10; else WAIT_SCALE=1; fi
# poll_until SECONDS COMMAND...: run COMMAND every 0.1 s until it succeeds,
# for SECONDS times WAIT_SCALE; the status of its last run. For the waits
# whose caller reports failure itself (cleanup paths that must not exit).
poll_until() {
	local tenths=$(($1 * 10 * WAIT_SCALE)) i
	shift
	for i in $(seq "$tenths"); do
		"$@" && return 0
		sleep 0.1
	done
	"$@"
}
# wait_for DESCRIPTION COMMAND...: until COMMAND succeeds, 10 s (times
# WAIT_SCALE); fails the case otherwise.
wait_for() {
	local what=$1
	shift
	poll_until 10 "$@" || fail "not $what after $((10 * WAIT_SCALE)) s"
}

# ---------------------------------------------------------------- memory
# meminfo KEY: a /proc/meminfo value in kB.
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
# mem_settle: write back and drop caches, so that what is left is held.
mem_settle() { sync; echo 3 >/proc/sys/vm/drop_caches; sleep 1; }
# mem_baseline / mem_check_back: settle and remember MemAvailable and Slab;
# later, settle again and fail if MemAvailable dropped by 64 MiB or Slab
# grew by 8 MiB. Noise, measured over 100 login cycles in this guest (case
# 13): MemAvailable moves by up to ~35 MiB either way (page cache, per-CPU
# lists), with the in-tree driver too; Slab grew by 1 MiB (ours) and 3.7 MiB
# (in-tree). A leak of one channel's receive ring per cycle (1 MiB) shows
# as 100 MiB.
mem_baseline() {
	mem_settle
	MEM_AVAIL0=$(meminfo MemAvailable) MEM_SLAB0=$(meminfo Slab)
}
mem_check_back() {
	local avail1 slab1
	mem_settle
	avail1=$(meminfo MemAvailable) slab1=$(meminfo Slab)
	log "MemAvailable: $MEM_AVAIL0 kB -> $avail1 kB; Slab: $MEM_SLAB0 kB -> $slab1 kB"
	[ $((MEM_AVAIL0 - avail1)) -lt 65536 ] || fail "MemAvailable dropped by $((MEM_AVAIL0 - avail1)) kB"
	[ $((slab1 - MEM_SLAB0)) -lt 8192 ] || fail "Slab grew by $((slab1 - MEM_SLAB0)) kB"
}

# ---------------------------------------------------------------- network, rxe
# Load what Soft-RoCE needs.  crypto-crc32: `rdma link add` fails without a
# crc32 crypto module on 6.1 and a minimal guest does not always autoload it.
# Asked for by its crypto alias, which every kernel's module provides
# (crc32_generic up to 6.12, crc32-cryptoapi on 7.3, whose rxe needs none).
rxe_modules() { modprobe -a crypto-crc32 rdma_rxe veth; }
veth_setup() {
	ip link show "$VETH0" >/dev/null 2>&1 && return 0
	ip link add "$VETH0" type veth peer name "$VETH1" &&
		ip addr add "$VETH0_IP/24" dev "$VETH0" &&
		ip addr add "$VETH1_IP/24" dev "$VETH1" &&
		ip link set "$VETH0" up && ip link set "$VETH1" up
}
rxe_present() { [ -d "/sys/class/infiniband/${1:-$RXE}" ]; }
# rxe_add [NAME [NETDEV]]: create the rxe device and wait for its port to be
# ACTIVE with a link-local GID 0 (both come a little after `rdma link add`).
rxe_add() {
	local dev=${1:-$RXE} net=${2:-$VETH0} i
	rxe_modules && veth_setup || return 1
	rdma link add "$dev" type rxe netdev "$net" || return 1
	for i in $(seq 50); do
		case "$(cat "/sys/class/infiniband/$dev/ports/1/state" 2>/dev/null)" in
		*ACTIVE*)
			case "$(cat "/sys/class/infiniband/$dev/ports/1/gids/0" 2>/dev/null)" in
			fe80:*) return 0 ;;
			esac ;;
		esac
		sleep 0.1
	done
	echo "rxe_add: $dev port 1 not ACTIVE with a link-local GID 0 after 5 s" >&2
	return 1
}
# veth_ll_ready [NETDEV]: the netdev's IPv6 link-local address is there and
# past duplicate address detection. Until then a MAD to GID 0 (which is that
# address) cannot be sent: on 6.12 umad_send can fail with ETIMEDOUT for
# about a second after the port is ACTIVE again.
veth_ll_ready() {
	local a
	a=$(ip -6 -o addr show dev "${1:-$VETH0}" scope link 2>/dev/null)
	[ -n "$a" ] && [[ "$a" != *tentative* ]]
}
rxe_del() { rdma link delete "${1:-$RXE}"; }

# Port names, as the module's configfs accepts them (tests/vm/README.md):
# GID 0 of the port is fe80::<interface id>.
port_gid0() { cat "/sys/class/infiniband/${1:-$RXE}/ports/${2:-1}/gids/0"; }
# GUID form: the interface id (last 8 bytes of GID 0), "xxxx:xxxx:xxxx:xxxx".
port_guid_name() { port_gid0 "$@" | cut -d: -f5-8; }
# GID form: "0x" + the 32 lowercase hex digits of GID 0.
port_gid_name() { echo "0x$(port_gid0 "$@" | tr -d :)"; }

# ---------------------------------------------------------------- module
srpt_loaded() { [ -d "/sys/module/$SRPT_MODNAME" ]; }
# The in-tree driver does not implement every line of our contract (e.g. it
# logs nothing for a refused port name); cases relax those checks for it.
# SRPT_VM_STRICT=1 applies them anyway (to see them fail on the in-tree one).
srpt_is_intree() {
	[ "${SRPT_VM_STRICT:-0}" != 1 ] &&
		[ "$(modinfo -F intree "${SRPT_MODULE:?}" 2>/dev/null)" = Y ]
}
configfs_mount() {
	modprobe configfs 2>/dev/null
	mountpoint -q "$CFS" || mount -t configfs configfs "$CFS"
}
# srpt_insmod [PARAM=VALUE...]: load the dependencies from the guest's module
# tree, then the module under test by path.  (modprobe ib_srpt is disabled by
# /etc/modprobe.d/srpt-vm.conf: it would load Debian's in-tree driver.)
srpt_insmod() {
	modprobe -a ib_cm rdma_cm target_core_mod || return 1
	configfs_mount || return 1
	echo "+ insmod ${SRPT_MODULE:?} $*"
	insmod "$SRPT_MODULE" "$@" || return 1
	modrange_save "$SRPT_MODNAME"
}
# srpt_load [PARAM=VALUE...]: insmod, then create the fabric directory
# target/srpt as rtslib does.  Target core creates a fabric's configfs group
# only on that mkdir, never at module load.
srpt_load() {
	srpt_insmod "$@" || fail "insmod $SRPT_MODULE failed"
	mkdir -p "$SRPT_CFS" || fail "mkdir $SRPT_CFS failed"
}

# Remove everything under target/srpt (LUN/ACL links, ACLs, LUNs, TPGs,
# ports), then the fabric directory itself: the fabric directory holds a
# reference on the module.  Prints what it removes; returns non-zero if
# anything stays.
srpt_cfs_clear() {
	local port tpg d l st=0
	[ -d "$SRPT_CFS" ] || return 0
	for port in "$SRPT_CFS"/*/; do
		port=${port%/}
		case "${port##*/}" in discovery_auth) continue ;; esac
		[ -d "$port" ] || continue
		for tpg in "$port"/tpgt_*/ "$port"/tpg_*/; do
			tpg=${tpg%/}
			[ -d "$tpg" ] || continue
			[ ! -f "$tpg/enable" ] || [ "$(cat "$tpg/enable")" = 0 ] ||
				echo 0 >"$tpg/enable" || st=1
			for d in "$tpg"/acls/*/; do
				[ -d "$d" ] || continue
				for l in "$d"/lun_*/; do
					[ -d "$l" ] || continue
					find "$l" -maxdepth 1 -type l -exec rm -f {} + 
					rmdir "$l" || st=1
				done
				rmdir "$d" || st=1
			done
			for l in "$tpg"/lun/lun_*/; do
				[ -d "$l" ] || continue
				find "$l" -maxdepth 1 -type l -exec rm -f {} +
				rmdir "$l" || st=1
			done
			for d in "$tpg"/np/*/; do
				[ -d "$d" ] && { rmdir "$d" || st=1; }
			done
			echo "cleanup: rmdir $tpg"
			rmdir "$tpg" || st=1
		done
		echo "cleanup: rmdir $port"
		rmdir "$port" || st=1
	done
	rmdir "$SRPT_CFS" || st=1
	return $st
}
# initiator_clear: log the in-kernel SRP initiator out of everything and
# unload it, so that no initiator keeps reconnecting into later cases.
initiator_clear() {
	[ -d /sys/module/ib_srp ] || return 0
	srp_delete_remote_ports "cleanup: "
	rmmod ib_srp || return 1
}
# srp_remote_ports_gone: the SRP initiator lists no remote port.
srp_remote_ports_gone() { ! ls /sys/class/srp_remote_ports/ 2>/dev/null | grep -q .; }
# srp_delete_remote_ports [LOG-PREFIX]: ib_srp removes every remote port (one
# line each when LOG-PREFIX is given); then waits until none is listed, 10 s
# (times WAIT_SCALE). 1 when one is left.
srp_delete_remote_ports() {
	local p
	for p in /sys/class/srp_remote_ports/port-*; do
		[ -e "$p/delete" ] || continue
		[ -z "${1:-}" ] || echo "${1}delete SRP remote port ${p##*/}"
		echo 1 >"$p/delete"
	done
	poll_until 10 srp_remote_ports_gone
}
# backstores_clear: remove the target core's storage objects and HBAs (the
# LUN links to them are gone with the fabric tree), and null_blk.
backstores_clear() {
	local hba so st=0
	for hba in "$CFS"/target/core/*_[0-9]*/; do
		[ -d "$hba" ] || continue
		for so in "$hba"*/; do
			[ -d "$so" ] || continue
			case "${so%/}" in */hba_info | */hba_mode) continue ;; esac
			[ -f "${so}enable" ] || continue
			echo "cleanup: rmdir ${so%/}"
			rmdir "$so" || st=1
		done
		rmdir "$hba" || st=1
	done
	[ -d /sys/module/null_blk ] && { rmmod null_blk || st=1; }
	return $st
}
# srpt_unload: initiator out, clear configfs, backstores, rmmod; non-zero
# (with a message) on failure.
srpt_unload() {
	initiator_clear || { echo "srpt_unload: SRP initiator cleanup failed" >&2; return 1; }
	srpt_cfs_clear || { echo "srpt_unload: configfs cleanup failed" >&2; return 1; }
	backstores_clear || { echo "srpt_unload: backstore cleanup failed" >&2; return 1; }
	if srpt_loaded; then
		srpt_objects_check || return 1
		rmmod "$SRPT_MODNAME" || { echo "srpt_unload: rmmod $SRPT_MODNAME failed" >&2; return 1; }
	fi
	return 0
}

# srpt_objects_check: with the configuration gone, our module's object
# counts (debugfs ib_srpt/objects; the in-tree driver has none) settle to
# no channel, QP, CQ or session within 30 s, no ownership breach, and every
# cm_id a login handed to a channel destroyed by it exactly once (the rules
# fault.sh checks in the fault cases).  Allocations are checked by the
# module itself at rmmod (a WARN with the counts).  Non-zero with a message
# otherwise; never exits (the runner calls it too).  SRPT_OBJECTS= names
# another file (to try the check on made-up counts).
# srpt_object NAME: its value in our debugfs ib_srpt/objects;
# srpt_object_is NAME VALUE: it has that value.
srpt_object() { sed -n "s/^$1 //p" "/sys/kernel/debug/$SRPT_MODNAME/objects"; }
srpt_object_is() { [ "$(srpt_object "$1")" = "$2" ]; }

srpt_objects_check() {
	local f=${SRPT_OBJECTS:-/sys/kernel/debug/$SRPT_MODNAME/objects} i k v line
	[ -r "$f" ] || return 0
	for i in $(seq 300); do
		line=
		while read -r k v; do
			printf -v "OC_$k" %s "$v"
			line+="$k=$v "
		done <"$f"
		[ "$OC_channels" = 0 ] && [ "$OC_qps" = 0 ] && [ "$OC_cqs" = 0 ] &&
			[ "$OC_sessions" = 0 ] && break
		sleep 0.1
	done
	local bad=
	[ "$OC_channels" = 0 ] && [ "$OC_qps" = 0 ] && [ "$OC_cqs" = 0 ] &&
		[ "$OC_sessions" = 0 ] || bad+="objects not released after 30 s; "
	[ "$OC_ownership_broken" = 0 ] || bad+="ownership rule broken; "
	[ "$OC_cm_adopted" = "$OC_cm_destroyed" ] || bad+="adopted cm_ids not destroyed exactly once; "
	[ "$OC_cm_destroyed" = "$OC_cm_destroyed_by_channel" ] ||
		bad+="core and shim disagree on cm_id destroys; "
	[ "$OC_login_ret_zero" = "$OC_cm_adopted" ] ||
		bad+="login answered 0 without a channel owning the cm_id; "
	[ -z "$bad" ] && return 0
	echo "srpt_unload: object counts: $bad$line" >&2
	return 1
}

# ---------------------------------------------------------------- target ports
# tport_add NAME: mkdir target/srpt/NAME and a TPG tpgt_1 under it, as rtslib
# does; fails the case if either mkdir fails.
tport_add() {
	run mkdir "$SRPT_CFS/$1"
	run mkdir "$SRPT_CFS/$1/tpgt_1"
}
# tport_del NAME: rmdir its TPGs and the port.
tport_del() {
	local t
	for t in "$SRPT_CFS/$1"/tpgt_*; do
		[ -d "$t" ] && run rmdir "$t"
	done
	run rmdir "$SRPT_CFS/$1"
}
# srpt_port_dirs: names of the target port directories that exist.
srpt_port_dirs() {
	local d
	for d in "$SRPT_CFS"/*/; do
		d=${d%/}
		d=${d##*/}
		case "$d" in discovery_auth | '*') ;; *) echo "$d" ;; esac
	done
}
