#!/bin/bash
# Boot one QEMU guest that runs a job script and powers off.
#
# usage: scripts/vm/boot.sh [--timeout SEC] [--follow] [--mem MB] [--smp N] OUTDIR
#   OUTDIR   host directory (created; must not contain spaces) shared read-write
#            with the guest at the same absolute path; it must hold job.sh,
#            a /bin/sh script run as root in the guest (see scripts/vm/init).
#   --follow copy the guest's job output (OUTDIR/guest.log) to stdout live.
#   --smp N  vCPUs (default 2, env SRPT_VM_SMP). One vCPU does not make a
#            debug guest faster when three share two cores, and two keep
#            real concurrency in the guest.
#
# Results in OUTDIR: console.log (serial console: kernel log and init lines),
# qemu.log (QEMU's own stderr), guest.log (job output), job.status (job's exit
# status, written by the guest's init; missing = the guest died or hung),
# qemu.status (QEMU's exit status), and console.boot<N>.log/qemu.boot<N>.log
# of a boot that never reached the job (booted again; see below).
#
# Exit status: the job's status; 124 if the guest hit the timeout, or did
# not start its job within SRPT_VM_BOOT_TIMEOUT seconds (default 300, 900 on
# the debug kernel) in SRPT_VM_BOOT_ATTEMPTS boots (default 2; QEMU is
# killed by PID); 125 if the guest stopped without finishing the job (crash).
#
# No KVM (nested virtualisation is absent here): TCG with -cpu max.  No NIC:
# tests build their own veth pair inside the guest; nothing leaves it.
set -euo pipefail
SRPT_ROOT=$(cd "$(dirname "$0")/../.." && pwd -P)
. "$SRPT_ROOT/scripts/vm/common.sh"

timeout=600 follow=0 mem=2048 smp=${SRPT_VM_SMP:-2}
while [ $# -gt 0 ]; do
	case "$1" in
	--timeout) timeout=$2; shift 2 ;;
	--follow) follow=1; shift ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	-*) vm_die "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || vm_die "usage: $0 [--timeout SEC] [--follow] OUTDIR"
mkdir -p "$1"
out=$(cd "$1" && pwd -P)
case "$out$VM_MODDIR" in
*[[:space:],]*) vm_die "paths with spaces or commas cannot go on the kernel command line / -virtfs: $out" ;;
esac
[ -f "$out/job.sh" ] || vm_die "$out/job.sh missing"
"$SRPT_ROOT/scripts/vm/prepare.sh"
rm -f "$out/job.status" "$out/guest.log" "$out/console.log"

# Debian's kernel has no KASAN, but SLUB's debug checks are built in: red
# zones, poisoning and free-pointer checks catch many use-after-free, double
# free and overflow bugs ("BUG <cache> (...): ..." reports).  Only on the
# caches a target driver allocates from (kmalloc, srpt*, target core's se_*
# and t10_*; names match by prefix): on every cache it doubles the boot time
# under TCG (root ready at ~13 s instead of ~5 s), on these it costs ~1.5 s.
# SRPT_VM_SLUB_DEBUG= (empty) turns it off, another value replaces it.
# The debug kernel leaves out kmalloc-*: KASAN already checks every kmalloc
# byte for byte (out of bounds, use after free, double free) and records
# each object's allocation and free stacks, so SLUB's checks there would
# repeat KASAN's and slow every case that allocates. Our own command cache
# and the target core's keep them.
slub_default='FZPU,kmalloc-*,srpt*,se_*,t10_*'
[ -z "$VM_DEBUG" ] || slub_default='FZPU,srpt*,se_*,t10_*'
slub=
[ -z "${SRPT_VM_SLUB_DEBUG-$slub_default}" ] ||
	slub="slub_debug=${SRPT_VM_SLUB_DEBUG-$slub_default}"

# The debug kernel: KASAN reports every bug, not only the first of the boot
# (one case's report would hide the next case's). no5lvl: 4-level paging.
# TCG's -cpu max offers LA57, and with 5-level paging a boot can die of a
# kernel race of its own before any module loads: identify_cpu() zeroes
# boot_cpu_data's feature bits with interrupts on, so until get_cpu_cap()
# fills them in again pgtable_l5_enabled() reads false, KASAN takes the
# 4-level layout's bounds, and an interrupt in that window reports its
# irq_desc lock in the 5-level direct map (ff11...) as a wild-memory-access
# (6.12.118, a race that a debug boot under load can lose). With no5lvl
# the bit is cleared for good before that, so both agree. Production
# kernels' guests keep 5-level paging.
dbg=
[ -z "$VM_DEBUG" ] || dbg="kasan_multi_shot no5lvl"

# KFENCE on from boot, one sampled allocation every 100 ms (the debug
# kernel's built-in default; Debian builds KFENCE in with the interval 0,
# i.e. off). On at boot, its 2 MiB pool comes from memblock; a case that
# turned it on later would make the kernel find 2 MiB of contiguous memory
# then, migrating pages and splitting the direct map, up to seconds of the
# guest's time in the middle of the case. So case 36 only shortens the
# interval. (The soft lockups a guest can report without a bug come from
# its clock and from first touches of memory, below, not from KFENCE.)
# SRPT_VM_KFENCE=MS sets the interval, empty leaves the kernel's own (the
# benchmark's guests: Debian's kernel as it ships).
kfence=
[ -z "${SRPT_VM_KFENCE-100}" ] || kfence="kfence.sample_interval=${SRPT_VM_KFENCE-100}"

# The guest's TSC frequency, given (tsc_early_khz=) rather than calibrated.
# A TCG guest's TSC is the host's, but the kernel calibrates it against the
# emulated PIT and HPET, and on a loaded host that goes wrong: with "PIT
# calibration deviates from HPET" the kernel can settle on a TSC frequency
# far below the real one (6.12, three guests on two cores), and every clock
# and timer of the guest then runs tens of times too fast until the TSC is
# declared unstable: RCU stalls are reported early in boot, and the guest's
# uptime runs ahead of QEMU's time. The host's frequency is taken at each
# boot by scripts/vm/tsc-khz.c; run.sh checks the guest's clock against the
# host's (tests/vm/clock.sh). SRPT_VM_TSC_KHZ=N gives N, empty leaves the
# calibration to the guest. Given, the TSC is also declared
# reliable (tsc=reliable): QEMU reads one host TSC for every vCPU, so they
# are in step, but under TCG the kernel's checks often say otherwise
# ("TSCs unsynchronized" at boot, or the clocksource watchdog's "excessive
# read-back delay" of HPET mid-run), and the guest then keeps time with the
# emulated HPET: an MMIO exit into QEMU, under its global lock, for every
# clock read of either vCPU. Under -icount the guest's TSC follows executed
# instructions, not the host's: calibrated there.
tsc=
if [ -z "${SRPT_VM_ICOUNT:-}" ]; then
	khz=${SRPT_VM_TSC_KHZ-}
	if [ -z "${SRPT_VM_TSC_KHZ+set}" ]; then
		tool=$VM_DIR/tsc-khz
		if [ ! -x "$tool" ] || [ "$SRPT_ROOT/scripts/vm/tsc-khz.c" -nt "$tool" ]; then
			gcc -O2 -Wall -Wextra -Werror -o "$tool.$$" "$SRPT_ROOT/scripts/vm/tsc-khz.c" &&
				mv -f "$tool.$$" "$tool" || vm_die "building $tool failed"
		fi
		khz=$("$tool") || vm_die "measuring the host's TSC frequency failed"
	fi
	[ -z "$khz" ] || { tsc="tsc_early_khz=$khz tsc=reliable"; vm_log "guest TSC: $khz kHz (tsc_early_khz)"; }
fi

# The soft-lockup detector reports a CPU that has not scheduled for
# 2 * watchdog_thresh seconds; the guests use 30 (60 s) instead of the
# kernel's 10. Under TCG a vCPU stops whenever the host stalls QEMU, and a
# host that is itself a VM makes a first touch of fresh memory wait on its
# own hypervisor, at times for seconds per page (4 KiB and 2 MiB pages
# alike): a guest task in clear_page_erms (the first write to a page the
# guest had never used), with nothing of ours on the stack, can then go
# longer than the kernel's 20 s without scheduling, a soft lockup that is
# no bug. A CPU that really stops scheduling is still reported, after 60 s:
# the runner's self-test spins without a scheduling point and must fail
# (tests/vm/selftest/cases/12-spin.sh). Other detectors keep their
# thresholds (RCU stalls 21 s, hung tasks 120 s).
lockup="watchdog_thresh=30"

qemu=(qemu-system-x86_64
	-accel tcg -cpu max -smp "$smp" -m "$mem"
	-nodefaults -display none -monitor none -no-reboot
	-serial "file:$out/console.log"
	-nic none
	-kernel "$VM_VMLINUZ" -initrd "$VM_INITRD"
	# panic=-1: reboot at once on panic, which -no-reboot turns into exit.
	# log_buf_len: the per-case kernel log scan reads dmesg, which must not wrap.
	# no_timer_check: under TCG on a loaded host the IO-APIC timer check can
	# miss its window and panic the boot ("IO-APIC + timer doesn't work!").
	-append "console=ttyS0 panic=-1 log_buf_len=16M no_timer_check $tsc $lockup $slub $kfence $dbg srptvm.out=$out srptvm.modules=$VM_MODDIR"
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	-virtfs "local,path=$out,mount_tag=srptout,security_model=none,multidevs=remap")

# SRPT_VM_ICOUNT=SPEC (e.g. shift=4,align=off,sleep=off): QEMU's -icount.
# Guest time then advances with instructions executed (one vCPU thread for
# all vCPUs), not with the host's clock, so a figure the guest measures
# reflects work done rather than how busy the host is (tests/bench).
[ -z "${SRPT_VM_ICOUNT:-}" ] || qemu+=(-icount "$SRPT_VM_ICOUNT")

start=$(date +%s.%N)
deadline=$(($(date +%s) + timeout))
# A kernel that never reaches the job is stopped long before the run's own
# timeout, and booted once more: the module under test is not loaded
# before the job starts, so such a boot tests only the emulator and the
# kernel's early boot. Seen: the debug kernel's KASAN report storm in
# identify_cpu under heavy host load, and 7.3 going silent right after
# "smp: Brought up 1 node, 2 CPUs" with four guests on two cores. A boot
# to the job takes 10-60 s here (a debug one about 2 minutes). The failed
# boot's console is kept as console.boot<N>.log, and run.sh scans it for
# bug reports like the console of the boot that ran the job.
boot_timeout=${SRPT_VM_BOOT_TIMEOUT:-$([ -n "$VM_DEBUG" ] && echo 900 || echo 300)}
boot_attempts=${SRPT_VM_BOOT_ATTEMPTS:-2}
rm -f "$out"/console.boot*.log "$out"/qemu.boot*.log
# Whatever happens to us, the guest must not outlive us (only our own PIDs).
qpid=
tailpid=
cleanup() {
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null || true
	[ -z "$tailpid" ] || kill "$tailpid" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$follow" = 1 ]; then
	tail -n +1 -F "$out/guest.log" 2>/dev/null &
	tailpid=$!
fi

# stop_qemu WHY: the guest ran out of time; QEMU is killed by its PID.
stop_qemu() {
	vm_log "$1; killing QEMU (pid $qpid)"
	kill "$qpid" 2>/dev/null || true
	sleep 2
	kill -9 "$qpid" 2>/dev/null || true
}
attempt=1
while :; do
	"${qemu[@]}" </dev/null >"$out/qemu.log" 2>&1 &
	qpid=$!
	# (SRPT_VM_BOOT_TIMEOUT_FIRST: the first boot's own limit, for the
	# runner's self-test of this retry.)
	limit=$boot_timeout
	[ "$attempt" != 1 ] || limit=${SRPT_VM_BOOT_TIMEOUT_FIRST:-$boot_timeout}
	boot_deadline=$(($(date +%s) + limit))
	timed_out=0 boot_stuck=0
	while kill -0 "$qpid" 2>/dev/null; do
		now=$(date +%s)
		if [ ! -e "$out/guest.log" ] && [ "$now" -ge "$boot_deadline" ]; then
			boot_stuck=1 timed_out=1
			stop_qemu "boot $attempt: the guest did not start its job within ${limit}s (SRPT_VM_BOOT_TIMEOUT); see $out/console.boot$attempt.log"
			break
		fi
		if [ "$now" -ge "$deadline" ]; then
			timed_out=1
			stop_qemu "guest timed out after ${timeout}s"
			break
		fi
		sleep 0.5
	done
	[ "$boot_stuck" = 1 ] || break
	stuck_rc=0
	wait "$qpid" 2>/dev/null || stuck_rc=$?
	cp "$out/console.log" "$out/console.boot$attempt.log"
	cp "$out/qemu.log" "$out/qemu.boot$attempt.log"
	vm_log "boot $attempt's last console line: $(tail -n 1 "$out/console.log" 2>/dev/null)"
	if [ "$attempt" -ge "$boot_attempts" ] || [ "$(date +%s)" -ge "$deadline" ]; then
		vm_log "no boot of $attempt reached the job"
		break
	fi
	attempt=$((attempt + 1))
	vm_log "booting again (attempt $attempt of $boot_attempts)"
	: >"$out/console.log"
done
# QEMU's own exit status tells a guest that powered off or reset (0) from
# QEMU killed from outside or crashing (128+signal; the host's OOM killer
# leaves a line in the host's kernel log).
qemu_rc=0
if [ "$boot_stuck" = 1 ]; then
	qemu_rc=$stuck_rc   # reaped in the loop
else
	wait "$qpid" 2>/dev/null || qemu_rc=$?
fi
echo "$qemu_rc" >"$out/qemu.status"
if [ -n "$tailpid" ]; then
	sleep 0.5   # let tail print the last lines
	kill "$tailpid" 2>/dev/null || true
	wait "$tailpid" 2>/dev/null || true
	tailpid=
fi
secs=$(echo "$start $(date +%s.%N)" | awk '{printf "%.1f", $2 - $1}')
echo "$secs" >"$out/elapsed"

if [ "$timed_out" = 1 ]; then
	exit 124
fi
if [ ! -f "$out/job.status" ]; then
	vm_log "guest stopped without finishing its job after ${secs}s; see $out/console.log"
	if [ "$qemu_rc" -gt 128 ]; then
		vm_log "QEMU (pid $qpid) ended by signal $((qemu_rc - 128))"
		dmesg 2>/dev/null | grep -E "(Killed process|oom-kill).*\b$qpid\b" | tail -n 2 |
			sed 's/^/vm: host kernel: /' || true
	elif [ "$qemu_rc" = 0 ]; then
		vm_log "QEMU (pid $qpid) exited with status 0 (the guest powered off or reset)"
	else
		vm_log "QEMU (pid $qpid) failed with status $qemu_rc (its error is in $out/qemu.log)"
	fi
	exit 125
fi
exit "$(cat "$out/job.status")"
