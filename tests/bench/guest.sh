#!/bin/bash
# Guest half of `make bench` (tests/bench/run.sh): in one boot, measures the
# bare RDMA/CM floor (tests/bench/floor_server.c), Debian's in-tree ib_srpt
# and ours, swapping the module between phases, and leaves the raw figures
# under $BENCH_OUT/raw/<target>/ for tests/bench/report.py.
#
# Every phase uses the same fabric (rxe0 on veth0, 192.0.2.1, RDMA/CM port
# 5555), the same login bytes and the same target configuration:
#   GUID-named target port, TPG tpgt_1, lun_0 on an iblock backstore over
#   null_blk (not memory backed: the backstore costs nothing and holds no
#   pages, so I/O and memory figures are the transport's), one ACL named
#   192.0.2.1 mapping lun_0, enabled, rdma_cm_port 5555. Both drivers name an
#   RDMA/CM session by the initiator's IP address, so that one ACL admits
#   every login from the guest, whatever its initiator port id: no demo mode
#   is needed (the in-tree driver has none). Module parameters and TPG
#   attributes stay at their defaults (in-tree and ours: srp_max_req_size
#   8276, srp_sq_size 4096, srp_max_rsp_size 256), except ours'
#   max_channels_per_nexus, which in-tree lacks: it bounds the live channels
#   of one session name too, and every login of the
#   guest has the one name 192.0.2.1, so ours is loaded with it at the
#   largest storm (at least its default 64); at 64, every login of a
#   256-storm past the 64th live channel is refused with 0x00010006.
#
# The login the tools send is ib_srp's default one: it_iu_len 8260, direct
# and indirect descriptors, SINGLE, immediate data requested at offset 68
# (56-byte RDMA/CM form). The floor gets exactly the same bytes.
#
# Environment: SRPT_ROOT, BENCH_OUT, BENCH_OURS (module path), BENCH_INTREE,
# BENCH_TARGETS (default "floor intree ours"), BENCH_SEQ (sequential logins,
# default 100, twice: back to back and BENCH_SEQ_GAP_MS apart, default 30),
# BENCH_SRP (ib_srp add/remove cycles, 12), BENCH_STORMS ("16 64 256"),
# BENCH_STORM_REPS (storms of each size, 3),
# BENCH_MEM_N (64), BENCH_MEM_COUNTS (phase mem's counts, 3), BENCH_FIO_S
# (seconds per fio job, 6), BENCH_FIO_ROUNDS (5), BENCH_FIO_CPU (the CPU
# fio is pinned to, 1; empty: not pinned),
# BENCH_PHASES (default "seq storm mem ib_srp fio"), BENCH_OURS_PARAMS (more
# module parameters of ours, words), BENCH_ICOUNT (only
# recorded in meta.txt: the -icount this guest runs under, if any).
#
# fio runs last, in rounds that alternate the SRP targets (in-tree, ours,
# in-tree, ours, ...), each target loaded afresh per round; the report takes
# each figure's median over the rounds. One run per target after its other
# phases would measure the order as much as the driver: the same two
# modules swap places by up to 30% between boots of a quiet host. fio is
# pinned to one CPU: left to the scheduler, one driver's 4 KiB IOPS move by
# up to 2x between rounds of one boot; pinned, the rounds of each driver
# agree within about 5% on a quiet host. A busy host still spreads the
# rounds by up to 30% (pinned or not), hence five of them and the median. tests/bench/run.sh runs the
# rounds once more in an instruction-counted guest (BENCH_ICOUNT, written
# to meta.txt), where they agree within a few percent.
set -u
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"

OUT=${BENCH_OUT:?}
TARGETS=${BENCH_TARGETS:-floor intree ours}
SEQ=${BENCH_SEQ:-100}
SEQ_GAP_MS=${BENCH_SEQ_GAP_MS:-30}
SRP_REPS=${BENCH_SRP:-12}
STORMS=${BENCH_STORMS:-16 64 256}
STORM_REPS=${BENCH_STORM_REPS:-3}
MEM_N=${BENCH_MEM_N:-64}
MEM_COUNTS=${BENCH_MEM_COUNTS:-3}
FIO_S=${BENCH_FIO_S:-6}
FIO_ROUNDS=${BENCH_FIO_ROUNDS:-5}
FIO_CPU=${BENCH_FIO_CPU-1}
PHASES=${BENCH_PHASES:-seq storm mem ib_srp fio}
OURS_PARAMS=${BENCH_OURS_PARAMS:-}
# Ours' max_channels_per_nexus: the largest storm, at least the default (64).
NEXUS_MAX=64
for n in $STORMS; do [ "$n" -le "$NEXUS_MAX" ] || NEXUS_MAX=$n; done
TOOL=$SRPT_ROOT/build/tools/srp_initiator
FLOOR=$SRPT_ROOT/build/bench/floor_server
mkdir -p "$OUT/raw"

say() { echo "bench: $(date -u +%T) $*"; }
now_us() { local t=$EPOCHREALTIME; echo $((${t%.*} * 1000000 + 10#${t#*.})); }
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
settle() { sync; echo 3 >/proc/sys/vm/drop_caches; sleep 2; }
# RC QPs that exist / are in RTS (initiator and target side both count).
rc_qps() { rdma res show qp 2>/dev/null | grep -c ' type RC '; }
rts_qps() { rdma res show qp 2>/dev/null | grep ' type RC ' | grep -c ' state RTS '; }
# wait_qps N SECONDS: until at most N RC QPs exist (released channels).
wait_qps() {
	local end=$((SECONDS + $2))
	while [ "$(rc_qps)" -gt "$1" ]; do
		[ $SECONDS -lt $end ] || { say "still $(rc_qps) RC QPs after $2 s"; return 1; }
		sleep 0.2
	done
}

# ------------------------------------------------------------- the login bytes
GUID=$(cat /sys/class/infiniband/$RXE/node_guid 2>/dev/null | tr -d :)
setup() {
	rxe_add || return 1
	configfs_mount || return 1
	GUID=$(srp_node_guid)
	# Initiator port ids: 0x1000 + i || port GUID; the storms add i to the
	# low 64 bits, so give each run its own range (no nexus is reused
	# while the target may still hold it).
	IPORT_HI=0000000000001000
	TPORT=$GUID$GUID
}
LOGIN_OPTS="--it-iu-len 8260 --flags 0x80 --buf-fmt 0x06 --imm-offset 68"
# The same 56 bytes as --login would send for index 0 (srp_initiator.c's
# RDMA/CM form): tag, buf_fmt 0x0006, flags 0x80, opcode 0, it_iu_len 8260,
# initiator port id, target port id, imm_data_offset 68, reserved.
floor_req() {
	printf '%s0006%s00%08x%s%s%04x%012x' 7465737400000000 80 8260 \
		"$1" "$TPORT" 68 0
}
run_seq=0
next_iport() { # a fresh initiator port id range per run
	run_seq=$((run_seq + 1))
	printf '%016x%s' $((0x100000 * run_seq)) "$(port_gid0 | cut -d: -f5-8 | tr -d :)"
}
# cli_argv: CLI_ARGV = the test initiator against 192.0.2.1:5555 with this
# target's login bytes (--req for the floor, --login for SRP targets), from
# a fresh initiator port id range. cli ARGS...: runs it.
cli_argv() {
	local ip
	ip=$(next_iport)
	CLI_ARGV=("$TOOL" --cm rdma --addr "$VETH0_IP" --port "$SRP_PORT")
	if [ "$TARGET" = floor ]; then
		CLI_ARGV+=(--req "$(floor_req "$ip")")
	else
		# shellcheck disable=SC2206
		CLI_ARGV+=(--login "$ip" "$TPORT" $LOGIN_OPTS)
	fi
}
cli() {
	cli_argv
	"${CLI_ARGV[@]}" "$@"
}

# ------------------------------------------------------------- targets
FLOOR_PID=
target_up() {
	case "$TARGET" in
	floor)
		rm -f /tmp/floor.ready
		"$FLOOR" --port "$SRP_PORT" --rsp-len 52 --ready /tmp/floor.ready \
			>"$RAW/floor_server.out" 2>&1 &
		FLOOR_PID=$!
		for _ in $(seq 50); do [ -e /tmp/floor.ready ] && return 0; sleep 0.1; done
		return 1 ;;
	*)
		local params=()
		if [ "$TARGET" = ours ]; then
			SRPT_MODULE=$BENCH_OURS
			params=("max_channels_per_nexus=$NEXUS_MAX" $OURS_PARAMS)
		else
			SRPT_MODULE=$BENCH_INTREE
		fi
		export SRPT_MODULE
		srpt_insmod "${params[@]}" || return 1
		mkdir -p "$SRPT_CFS" || return 1
		# null_blk, not memory backed (see the header); srp_target then
		# puts the iblock backstore on /dev/nullb0.
		modprobe null_blk nr_devices=1 gb=1 bs=512 queue_mode=2 memory_backed=0 || return 1
		(srp_target "$(port_guid_name)" "$VETH0_IP" "") >"$RAW/target-setup.log" 2>&1 || return 1
		grep -H . "$SRPT_CFS/$(port_guid_name)/tpgt_1/attrib/"* /sys/module/ib_srpt/parameters/* \
			>"$RAW/config.txt" 2>/dev/null
		modinfo -F filename "$SRPT_MODULE" >>"$RAW/config.txt"
		modinfo -F srcversion "$SRPT_MODULE" >>"$RAW/config.txt" ;;
	esac
}
target_down() {
	case "$TARGET" in
	floor)
		kill "$FLOOR_PID" 2>/dev/null
		wait "$FLOOR_PID" 2>/dev/null
		cat "$RAW/floor_server.out" ;;
	*)
		srpt_unload ;;
	esac
}

# ------------------------------------------------------------- phases
# The port's ib_cm message counters (both ends of every login share rxe0):
# a DREQ that went unanswered is retried after about 4.8 s (its time-out is
# 2 x packet life + the response time-out), and its retry either finds the
# other end in TIMEWAIT (a duplicate, answered with the DREP again) or not.
CM_COUNTERS="cm_tx_msgs/dreq cm_tx_msgs/drep cm_rx_msgs/dreq cm_rx_msgs/drep cm_tx_retries/dreq cm_rx_duplicates/dreq"
cm_counters() {
	local c v line=
	for c in $CM_COUNTERS; do
		v=$(cat "/sys/class/infiniband/$RXE/ports/1/$c" 2>/dev/null) || v=-
		line+="$c=$v "
	done
	echo "$line"
}
# seq_pass NAME ARGS...: one sequential pass into $RAW/NAME.txt, with its
# guest-time span and the CM counters before and after in $RAW/NAME.cm.txt.
# The span is read from /proc/uptime, not the wall clock: under -icount the
# guest's realtime clock runs away from its monotonic one (a pass can last
# several times as long by `date` as by the tool's clock).
uptime_us() { local u _; read -r u _ </proc/uptime; echo $(( ${u%.*} * 1000000 + 10#${u#*.} * 10000 )); }
seq_pass() {
	local name=$1 t0
	shift
	wait_qps 0 60
	t0=$(uptime_us)
	echo "before $(cm_counters)" >"$RAW/$name.cm.txt"
	cli "$@" >"$RAW/$name.txt" 2>&1
	{ echo "after $(cm_counters)"; echo "span_us $(( $(uptime_us) - t0 ))"; } >>"$RAW/$name.cm.txt"
	tail -n 1 "$RAW/$name.txt"
}
# Sequential logins and logouts with the test initiator (no SCSI work):
# back to back, then SEQ_GAP_MS apart. Back to back, each REQ competes with
# the release of the channel before it and finds the guest's CPUs awake;
# apart, every login starts from an idle guest, as one after a fabric event
# does.
phase_seq() {
	say "$TARGET: $SEQ sequential logins, back to back"
	seq_pass login_seq --count "$SEQ"
	say "$TARGET: $SEQ sequential logins, $SEQ_GAP_MS ms apart"
	seq_pass login_seq_gap --count "$SEQ" --gap-ms "$SEQ_GAP_MS"
}

# ib_srp add_target (login + SCSI scan; the write returns after the scan)
# and remove (until the remote port is gone and the target released its
# QPs), one after the other.
phase_ib_srp() {
	local i t0 t1 g p
	[ "$TARGET" = floor ] && return 0
	say "$TARGET: $SRP_REPS ib_srp add_target/remove cycles"
	srp_initiator_load
	g=$GUID
	: >"$RAW/srp_add_us.txt"
	: >"$RAW/srp_remove_us.txt"
	for i in $(seq "$SRP_REPS"); do
		wait_qps 0 30 || break
		t0=$(now_us)
		if ! echo "id_ext=$g,ioc_guid=$g,dest=$VETH0_IP:$SRP_PORT" >"$SRP_SYSFS/add_target"; then
			echo "add_target failed in cycle $i" >>"$RAW/errors.txt"
			break
		fi
		t1=$(now_us)
		echo $((t1 - t0)) >>"$RAW/srp_add_us.txt"
		[ "$i" = 1 ] && cat /sys/class/scsi_host/host*/ch_count >"$RAW/srp_ch_count.txt" 2>/dev/null
		t0=$(now_us)
		for p in /sys/class/srp_remote_ports/port-*; do
			[ -e "$p/delete" ] && echo 1 >"$p/delete"
		done
		while ls /sys/class/srp_remote_ports/ | grep -q .; do sleep 0.02; done
		wait_qps 0 30
		t1=$(now_us)
		echo $((t1 - t0)) >>"$RAW/srp_remove_us.txt"
	done
	tail -n 3 "$RAW/srp_add_us.txt" | paste -sd ' '
}

# N logins at once from distinct initiator port ids (hold 0: each logs out
# right after every login was answered), STORM_REPS times per size, into
# storm_N.r1.txt, storm_N.r2.txt, ...: one storm's logins/s moved by 2-4x
# between runs on a busy host (the floor's too), so the report takes the
# median over the storms of a size and shows their spread.
phase_storm() {
	local n r
	for n in $STORMS; do
		for r in $(seq 1 "$STORM_REPS"); do
			say "$TARGET: storm of $n ($r of $STORM_REPS)"
			wait_qps 0 120
			cli --concurrent "$n" --timeout-ms 120000 >"$RAW/storm_$n.r$r.txt" 2>&1
			tail -n 1 "$RAW/storm_$n.r$r.txt"
		done
	done
	wait_qps 0 120
}

# Memory per live channel: MemAvailable and Slab with no channel, then with
# MEM_N channels held open by one test initiator process, until it is told
# to end the hold (SIGUSR1); it then disconnects each one (DREQ/DREP).
# (Killing it instead is no clean logout: the kernel destroys ids whose
# DREQ may never leave, and the exit waits out every id's time-wait.)
# MEM_COUNTS times, into mem.1.txt, mem.2.txt, ...: counted once per boot,
# in-tree's figure per channel moves between boots by more than ours' whole
# cost, so the report takes the median of the counts and says their spread.
phase_mem() {
	local c
	for c in $(seq "$MEM_COUNTS"); do mem_count "$c"; done
}
mem_count() {
	local f=$RAW/mem.$1.txt pid end k
	say "$TARGET: memory with $MEM_N live channels, count $1 of $MEM_COUNTS"
	wait_qps 0 120
	# Ours keeps the receive rings and command contexts of released
	# channels for 5 s (recv_ring_cache): the baseline is taken without
	# them, so that every channel below pays for its own.
	if [ -r /sys/kernel/debug/ib_srpt/objects ]; then
		end=$((SECONDS + 30))
		until { grep -q '^recv_rings_cached 0$' /sys/kernel/debug/ib_srpt/objects &&
			grep -q '^cmd_sets_cached 0$' /sys/kernel/debug/ib_srpt/objects; } ||
			[ $SECONDS -ge $end ]; do sleep 0.5; done
	fi
	settle
	{
		echo "channels=$MEM_N"
		for k in MemAvailable MemFree Slab SUnreclaim VmallocUsed; do
			echo "before_$k=$(meminfo $k)"
		done
	} >"$f"
	# (Not through the function: $! must be the initiator's own PID.)
	cli_argv
	"${CLI_ARGV[@]}" --concurrent "$MEM_N" --hold-ms 3600000 --timeout-ms 120000 \
		>"$RAW/mem_logins.$1.txt" 2>&1 &
	pid=$!
	# Every login answered, then every QP of both sides in RTS.
	end=$((SECONDS + 300))
	until grep -q '^summary' "$RAW/mem_logins.$1.txt" || [ $SECONDS -ge $end ]; do sleep 0.5; done
	end=$((SECONDS + 60))
	until [ "$(rts_qps)" -ge $((2 * MEM_N)) ] || [ $SECONDS -ge $end ]; do sleep 0.5; done
	rdma res show qp >"$RAW/mem_qps.$1.txt" 2>&1
	settle
	{
		echo "live_rts_qps=$(rts_qps)"
		for k in MemAvailable MemFree Slab SUnreclaim VmallocUsed; do
			echo "during_$k=$(meminfo $k)"
		done
		[ "$TARGET" != ours ] || echo "debugfs_channels=$(srp_channels | wc -l)"
	} >>"$f"
	slabtop -o -s c 2>/dev/null | head -n 25 >"$RAW/mem_slabtop.$1.txt"
	kill -USR1 "$pid" 2>/dev/null
	wait "$pid"
	wait_qps 0 120
	grep '^summary' "$RAW/mem_logins.$1.txt"
	paste -sd ' ' "$f"
}

# cpu_busy: "BUSY TOTAL" clock ticks (USER_HZ) of all CPUs since boot from
# /proc/stat: busy is user, nice, system, irq, softirq and steal; total adds
# idle and iowait. Taken around each fio job, busy ticks per I/O is the CPU
# the whole guest (fio, ib_srp, rxe, the target, null_blk) spent on one
# command. No ramp time in the jobs: the ticks span the job's whole run.
cpu_busy() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat
}

# I/O through ib_srp (default login) with fio; $1: the round.
phase_fio() {
	local round=$1 dev job name rw bs qd
	[ "$TARGET" = floor ] && return 0
	say "$TARGET: fio round $round, ${FIO_S}s per job"
	wait_qps 0 60
	srp_initiator_load
	echo "id_ext=$GUID,ioc_guid=$GUID,dest=$VETH0_IP:$SRP_PORT" >"$SRP_SYSFS/add_target" || {
		echo "fio: add_target failed" >>"$RAW/errors.txt"
		return 1
	}
	dev=$(srp_disk) || { echo "fio: no disk" >>"$RAW/errors.txt"; return 1; }
	for job in randread-4k:randread:4k:32 randwrite-4k:randwrite:4k:32 read-1m:read:1m:8 \
		write-1m:write:1m:8 randread-4k-qd1:randread:4k:1; do
		IFS=: read -r name rw bs qd <<<"$job"
		cpu_busy >"$RAW/cpu_$name.r$round.txt"
		${FIO_CPU:+taskset -c "$FIO_CPU"} fio --name="$name" --filename="$dev" \
			--direct=1 --ioengine=libaio --rw="$rw" --bs="$bs" --iodepth="$qd" --numjobs=1 \
			--runtime="$FIO_S" --time_based --group_reporting \
			--output-format=json --output="$RAW/fio_$name.r$round.json" >/dev/null 2>&1 ||
			echo "fio $name failed" >>"$RAW/errors.txt"
		cpu_busy >>"$RAW/cpu_$name.r$round.txt"
	done
	srp_logout
	wait_qps 0 60
}

# target_reports MARK: the kernel log of $TARGET since MARK, appended to its
# dmesg.txt, and any kernel report in it to kernel_reports.txt.
target_reports() {
	dmesg | awk -v m="srpt-vm-mark: $1" 'on { print } index($0, m) { on = 1 }' |
		tee -a "$RAW/dmesg.txt" | kernel_reports >>"$RAW/kernel_reports.txt"
	[ ! -s "$RAW/kernel_reports.txt" ] || { say "$TARGET: kernel reported:"; cat "$RAW/kernel_reports.txt"; }
}

# ------------------------------------------------------------- main
say "kernel $(uname -r), $(nproc) CPUs, $(meminfo MemTotal) kB"
setup || { say "setup failed"; exit 1; }
{
	echo "kernel=$(uname -r)"
	echo "cpus=$(nproc)"
	echo "memtotal_kb=$(meminfo MemTotal)"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "seq=$SEQ seq_gap_ms=$SEQ_GAP_MS srp_reps=$SRP_REPS storms=${STORMS// /,} storm_reps=$STORM_REPS mem_n=$MEM_N mem_counts=$MEM_COUNTS fio_s=$FIO_S fio_rounds=$FIO_ROUNDS"
	echo "login_opts=$LOGIN_OPTS"
	[ -z "${BENCH_ICOUNT:-}" ] || echo "icount=$BENCH_ICOUNT"
} >"$OUT/raw/meta.txt"
kmsg_mark "bench start"
st=0
for TARGET in $TARGETS; do
	RAW=$OUT/raw/$TARGET
	mkdir -p "$RAW"
	kmsg_mark "bench $TARGET"
	say "=== $TARGET"
	if ! target_up; then
		say "$TARGET: could not be set up"
		echo "setup failed" >>"$RAW/errors.txt"
		st=1
		target_down
		continue
	fi
	for ph in $PHASES; do
		[ "$ph" = fio ] || "phase_$ph"
	done
	target_down || { say "$TARGET: teardown failed"; st=1; }
	target_reports "bench $TARGET"
done
case " $PHASES " in *" fio "*)
	for round in $(seq "$FIO_ROUNDS"); do
		for TARGET in $TARGETS; do
			[ "$TARGET" = floor ] && continue
			RAW=$OUT/raw/$TARGET
			kmsg_mark "bench fio $round $TARGET"
			if ! target_up; then
				say "$TARGET: could not be set up for fio round $round"
				echo "fio round $round: setup failed" >>"$RAW/errors.txt"
				st=1
				target_down
				continue
			fi
			phase_fio "$round"
			target_down || { say "$TARGET: teardown failed"; st=1; }
			target_reports "bench fio $round $TARGET"
		done
	done ;;
esac
say "done"
exit $st
