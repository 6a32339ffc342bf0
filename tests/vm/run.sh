#!/bin/bash
# Run the VM test cases against an ib_srpt.ko in ONE QEMU guest (Debian's
# kernel matching the installed headers; see scripts/vm/) and report TAP.
#
# usage: tests/vm/run.sh [options] [CASE...]
#   CASE              run only these cases: a number (03), a name (03-tport)
#                     or a substring of the file name; default: all of
#                     tests/vm/cases/[0-9]*.sh in order
#   --module PATH     module under test (default: the module built for the
#                     guest's kernel, build/kernels/<abi>/ib_srpt.ko, else
#                     <checkout>/ib_srpt.ko; env SRPT_MODULE; on the debug
#                     kernel make module-debug puts it in build/kernels/);
#                     "intree" = the kernel's own ib_srpt.ko from the
#                     guest's module tree, to check the machinery
#   --selftest[=MODES] instead of the cases, run the runner's self-test
#                     (tests/vm/selftest/cases/NN-MODE.sh: none, warn, oops,
#                     crash, hang, srpt-leak (needs the module), and for the
#                     debug kernel kasan, lockorder, atomic, leak; default
#                     none,warn,oops,crash; env
#                     SRPT_VM_SELFTEST=warn,oops): the guest loads a module
#                     that WARNs / Oopses / hangs, or crashes, and the run
#                     MUST report failures
#   --timeout SEC     kill the guest after SEC seconds (default 900; env
#                     SRPT_VM_TIMEOUT); a guest booted again after a
#                     foreign crash gets what is left of SEC
#   --case-timeout SEC  per case, inside the guest (default 240)
#   --out DIR         output directory (default build/vm/runs/suite or
#                     build/vm/runs/selftest); emptied first
# Environment: KVER=<name|abi> (scripts/kernel/kernels: 6.1, 6.12, 7.3;
#   default: Debian 12's default ABI, scripts/default-kver.sh),
#   SRPT_DEBUG_KERNEL=1 (boot the debug kernel of scripts/debug-kernel/,
#   built before: make check-debug),
#   SRPT_VM_STRICT=1 (apply our module's contract checks even to the in-tree
#   driver, which logs less; those checks then fail, as they should),
#   SRPT_VM_SLUB_DEBUG=flags (guest slub_debug=, default see scripts/vm/boot.sh,
#   off for the self-test; empty = off), SRPT_VM_KFENCE=ms (KFENCE's
#   sampling interval, default 100; empty = the kernel's), SRPT_CASE_*=... (exported to the
#   cases: parameters some cases read, e.g. 28/29's login counts)
#
# How cases and the module meet: the runner never loads the module itself.
# Before each case it restores the clean state (module unloaded after its
# configfs tree is removed, veth0/veth1 and rxe0 present), the case loads the
# module with srpt_load from tests/vm/lib.sh (so a case can choose parameters,
# or the moment it loads relative to rxe), and afterwards the runner cleans up
# again: a module left in a state that cannot be cleaned fails the case.
#
# Failure detection: a case fails when its script exits non-zero (77 = skip),
# when it times out, when cleanup after it fails, or when the kernel log of
# its slice (dmesg between markers) holds a bug report (kernel-reports.txt:
# Oops, BUG:, WARNING:, lockdep, Call Trace, ...).  Two host-side checks
# follow the cases: the guest ran all cases and powered off (no crash, no
# timeout), and the whole serial console log holds no bug report.
#
# Output: TAP on stdout, then the line "N passed, N failed[, N skipped]";
# exit 0 only if nothing failed.  Kept under the output directory:
# console.log (serial console), guest.log (runner output), cases/<name>.log
# (case output) and cases/<name>.dmesg (its kernel log slice), results.tsv.
set -uo pipefail
SRPT_ROOT=$(cd "$(dirname "$0")/../.." && pwd -P)
. "$SRPT_ROOT/scripts/vm/common.sh"
. "$SRPT_ROOT/tests/vm/foreign.sh"
. "$SRPT_ROOT/tests/vm/clock.sh"

module=${SRPT_MODULE:-$(vm_default_module)}
selftest=${SRPT_VM_SELFTEST:-}
timeout=${SRPT_VM_TIMEOUT:-900}
case_timeout=${SRPT_VM_CASE_TIMEOUT:-240}
out=
filters=()
while [ $# -gt 0 ]; do
	case "$1" in
	--module) module=$2; shift 2 ;;
	--module=*) module=${1#*=}; shift ;;
	--selftest) selftest=${selftest:-all}; shift ;;
	--selftest=*) selftest=${1#*=}; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--case-timeout) case_timeout=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) filters+=("$1"); shift ;;
	esac
done

# (tests/vm/suite.sh does these once before booting its shards.)
if [ -z "${SRPT_VM_SKIP_PREPARE:-}" ]; then
	"$SRPT_ROOT/scripts/install-deps.sh" vm || exit 1
	"$SRPT_ROOT/scripts/vm/prepare.sh" || exit 1
	# The userspace test tools the cases run in the guest (tests/tools).
	make -s --no-print-directory -C "$SRPT_ROOT" tools >/dev/null || exit 1
fi

[ "$module" != intree ] || module=$(vm_intree_module)
case "$module" in /*) ;; *) module=$PWD/$module ;; esac

# ---- the case list
cases=()
if [ -n "$selftest" ]; then
	[ "$selftest" != all ] && [ "$selftest" != 1 ] || selftest=none,warn,oops,crash
	for m in ${selftest//,/ }; do
		f=$(ls "$SRPT_ROOT"/tests/vm/selftest/cases/[0-9]*-"$m".sh 2>/dev/null | head -n 1)
		[ -n "$f" ] || { echo "run.sh: no self-test case for mode '$m'" >&2; exit 2; }
		cases+=("$f")
	done
	out=${out:-$VM_DIR/runs/${VM_DEBUG:+debug-}selftest}
	# SLUB debugging (scripts/vm/boot.sh) only slows the self-test down.
	export SRPT_VM_SLUB_DEBUG=${SRPT_VM_SLUB_DEBUG-}
	# The self-test module, built on the host against the same headers.  Kbuild
	# writes next to its sources, so build from a copy under build/.
	st_build=$VM_DIR/selftest/$KVER
	st_ko=$st_build/srpt_vm_selftest.ko
	if [ ! -f "$st_ko" ] || [ -n "$(find "$SRPT_ROOT/tests/vm/selftest" -maxdepth 1 -newer "$st_ko" -type f)" ]; then
		rm -rf "$st_build"
		mkdir -p "$st_build"
		cp "$SRPT_ROOT"/tests/vm/selftest/Kbuild "$SRPT_ROOT"/tests/vm/selftest/*.c "$st_build/"
		if ! "$SRPT_ROOT/scripts/kernel/kmake.sh" "$st_build" modules >"$st_build/build.log" 2>&1; then
			cat "$st_build/build.log" >&2
			echo "run.sh: building the self-test module failed" >&2
			exit 1
		fi
	fi
else
	for f in "$SRPT_ROOT"/tests/vm/cases/[0-9]*.sh; do
		[ -f "$f" ] || continue
		n=$(basename "$f" .sh)
		if [ ${#filters[@]} -gt 0 ]; then
			keep=0
			for p in "${filters[@]}"; do
				case "$n" in "$p" | "$p"-* | *"$p"*) keep=1 ;; esac
			done
			[ $keep = 1 ] || continue
		else
			vm_case_named_only "$f" && continue
		fi
		cases+=("$f")
	done
	out=${out:-$VM_DIR/runs/${VM_DEBUG:+debug-}suite}
	[ -f "$module" ] || {
		echo "run.sh: module under test not found: $module (build it first, or --module PATH|intree)" >&2
		exit 1
	}
	vermagic=$(modinfo -F vermagic "$module" 2>/dev/null)
	case "$vermagic" in
	"$KVER "*) ;;
	*) echo "run.sh: $module is built for '${vermagic%% *}', the guest runs $KVER" >&2; exit 1 ;;
	esac
fi
[ ${#cases[@]} -gt 0 ] || { echo "run.sh: no cases selected" >&2; exit 2; }
[ -n "${SRPT_VM_SKIP_PREPARE:-}" ] || vm_host_prepare "${cases[@]}"

mkdir -p "$out"
out=$(cd "$out" && pwd -P)
# One run per output directory: a guest still shutting down from an earlier
# run would write its results into this one's. The lock is inherited by
# QEMU and so held until the guest is gone.
exec {out_lock}>"$out.lock"
flock -n "$out_lock" || { echo "run.sh: $out is in use by another run (lock $out.lock)" >&2; exit 1; }
rm -rf "${out:?}"/*

# The guest loads a copy: the module may be rebuilt on the host while the
# guest runs, and a path under /tmp or /run would be hidden in the guest.
# (The self-test's srpt-leak case needs it too, when it was built.)
module_orig=$module
if [ -z "$selftest" ] || [ -f "$module" ]; then
	vm_copy_module "$module" "$out/ib_srpt.ko"
	module=$out/ib_srpt.ko
fi

# ---- the guest's job
# write_job BASE CASE...: the guest runs these cases, numbering them from
# BASE + 1 (a boot after a foreign crash runs the rest of the list).
write_job() {
	local base=$1
	shift
	{
		echo "# generated by tests/vm/run.sh"
		printf 'export SRPT_ROOT=%q SRPT_MODULE=%q SRPT_VM_OUT=%q\n' "$SRPT_ROOT" "$module" "$out"
		printf 'export SRPT_VM_CASES=%q SRPT_VM_CASE_BASE=%q SRPT_VM_CASE_TIMEOUT=%q\n' "$*" "$base" "$case_timeout"
		printf 'export SRPT_VM_STRICT=%q\n' "${SRPT_VM_STRICT:-0}"
		# The guest kernel's build tree, as its linux-headers package would
		# give it (the package case links /lib/modules/<kver>/build to it).
		printf 'export SRPT_VM_HEADERS=%q\n' "$VM_HEADERS"
		printf 'export SRPT_IO_LONG=%q\n' "${SRPT_IO_LONG:-0}"
		# Case parameters (SRPT_CASE_*) pass through, for a make target that
		# runs a case with other settings (make fuzz-guest).
		for v in $(compgen -e | grep '^SRPT_CASE_'); do printf 'export %s=%q\n' "$v" "${!v}"; done
		[ -z "$selftest" ] || printf 'export SRPT_VM_SELFTEST_KO=%q\n' "$st_ko"
		echo 'exec bash "$SRPT_ROOT/tests/vm/guest.sh"'
	} >"$out/job.sh"
}
write_job 0 "${cases[@]}"

# ---- boot, streaming results as the guest writes them
n=${#cases[@]}
total=$((n + 3))
echo "TAP version 13"
if [ -n "$selftest" ]; then
	echo "# kernel $KVER, runner self-test ($selftest): failures are expected"
else
	echo "# kernel $KVER, module $module_orig (copied to $module)"
fi
echo "# output in $out"
echo "1..$total"

passed=0 failed=0 skipped=0
report() { # report INDEX STATUS NAME REASON
	local i=$1 st=$2 name=$3 reason=$4
	case $st in
	ok) echo "ok $i - $name"; passed=$((passed + 1)) ;;
	skip) echo "ok $i - $name # SKIP $reason"; skipped=$((skipped + 1)) ;;
	*)
		echo "not ok $i - $name${reason:+: $reason}"
		failed=$((failed + 1))
		# A kernel report first, whole: CI shows a failure's first lines,
		# and a report's cause is in its head (SLUB prints what was
		# overwritten just before its BUG line) and its stacks.
		case_first_report "$out/cases/$name.dmesg"
		if [ -f "$out/cases/$name.log" ]; then
			echo "# --- last lines of $out/cases/$name.log"
			tail -n 25 "$out/cases/$name.log" | sed 's/^/#   /'
		fi
		# The kernel's side of the story (e.g. why insmod said EINVAL).
		if [ -s "$out/cases/$name.dmesg" ]; then
			echo "# --- last kernel log lines of the case ($out/cases/$name.dmesg)"
			grep -v 'srpt-vm-mark: ' "$out/cases/$name.dmesg" | tail -n 12 | sed 's/^/#   /'
		fi
		;;
	esac
}

t0=$(date +%s.%N)
seen=0
stream() {
	[ -f "$out/results.tsv" ] || return 0
	while IFS=$'\t' read -r i st name reason; do
		[ "$i" -gt "$seen" ] 2>/dev/null || continue
		report "$i" "$st" "$name" "$reason"
		seen=$i
	done <"$out/results.tsv"
}
# A guest whose kernel died of a report while no out-of-tree module had
# been loaded in that boot (tests/vm/foreign.sh) is booted once more for the
# cases it had not reported, the one it died in first; its files are kept
# with the suffix .foreign<N>, its report printed here, and the host's
# console check below leaves that console out. Any other end is final.
# SRPT_VM_FOREIGN_REBOOTS: how many such boots a run may add (default 1).
# --timeout bounds all boots together: a boot added gets what is left.
foreign_reboots=${SRPT_VM_FOREIGN_REBOOTS:-1}
foreign=0
bootpid=
boot_left=$timeout
trap 'kill "$bootpid" 2>/dev/null; exit 130' INT TERM
while :; do
	"$SRPT_ROOT/scripts/vm/boot.sh" --timeout "$boot_left" "$out" >"$out/boot.log" 2>&1 &
	bootpid=$!
	while kill -0 "$bootpid" 2>/dev/null; do
		stream
		sleep 1
	done
	wait "$bootpid"
	boot_rc=$?
	stream
	boot_left=$((timeout - $(date +%s) + ${t0%.*}))
	[ "$boot_rc" = 125 ] && [ "$seen" -lt "$n" ] && [ ! -s "$out/results.aborted" ] &&
		[ "$foreign" -lt "$foreign_reboots" ] && [ "$boot_left" -gt 0 ] &&
		console_report_foreign "$out/console.log" || break
	foreign=$((foreign + 1))
	sfx=foreign$foreign
	for f in console.log qemu.log guest.log boot.log results.tsv; do
		[ -f "$out/$f" ] && mv "$out/$f" "$out/${f%.*}.$sfx.${f##*.}"
	done
	# (boot.sh deletes console.boot*.log when it starts.)
	for f in "$out"/console.boot*.log "$out"/qemu.boot*.log; do
		[ -f "$f" ] && b=${f##*/} && mv "$f" "$out/${b%%.*}.$sfx.${b#*.}"
	done
	name=$(basename "${cases[$seen]}" .sh)
	for f in log dmesg kmemleak; do
		[ -f "$out/cases/$name.$f" ] && mv "$out/cases/$name.$f" "$out/cases/$name.$sfx.$f"
	done
	echo "# vm: the guest died during $name of a kernel report while no out-of-tree module had"
	echo "# vm: been loaded in its boot (flags: $(console_taints "$out/console.$sfx.log" | sort -u | paste -sd,)): not a report about"
	echo "# vm: our code; booting again for the $((n - seen)) cases not reported, ${boot_left}s left (console kept as console.$sfx.log)"
	console_report_lines "$out/console.$sfx.log" | head -n 8 | sed 's/^[0-9]*:/# vm:   /'
	write_job "$seen" "${cases[@]:$seen}"
done
secs=$(echo "$t0 $(date +%s.%N)" | awk '{printf "%.1f", $2 - $1}')

# guest_end_report: how the guest ended (boot.sh's lines, QEMU's status and
# stderr) and the last lines of its console.
guest_end_report() {
	echo "# --- how the guest ended ($out/boot.log, $out/qemu.log)"
	grep '^vm: ' "$out/boot.log" 2>/dev/null | tail -n 4 | sed 's/^/#   /'
	tail -n 5 "$out/qemu.log" 2>/dev/null | sed 's/^/#   qemu: /'
	echo "# --- last lines of $out/console.log"
	tail -n 20 "$out/console.log" 2>/dev/null | sed 's/^/#   /'
}

# A boot that did not reach the job and the boot after it (boot.sh).
grep -E '^vm: (boot [0-9]+|booting again|no boot)' "$out/boot.log" 2>/dev/null | sed 's/^/# /'

# Cases the guest never reported (it crashed or hung) fail.
why="guest stopped before reporting it"
[ "$boot_rc" != 124 ] || why="guest timed out (${timeout}s) before finishing it"
[ "$boot_rc" != 124 ] || [ -e "$out/guest.log" ] ||
	why="no boot of the guest started its job (see boot.log)"
[ ! -s "$out/results.aborted" ] || why="not run: $(cat "$out/results.aborted")"
i=$seen
while [ "$i" -lt "$n" ]; do
	name=$(basename "${cases[$i]}" .sh)
	i=$((i + 1))
	report "$i" fail "$name" "$why"
	# Where the guest stopped, the host's side of it comes first: a CI
	# excerpt keeps the head of a long report and may cut its tail.
	[ "$i" = $((seen + 1)) ] && [ ! -s "$out/results.aborted" ] && guest_end_report
done

# Host check 1: the guest ran everything and powered off by itself.
if [ -f "$out/results.done" ] && [ "$boot_rc" = 0 ]; then
	report $((n + 1)) ok "guest ran all cases and powered off" ""
else
	case $boot_rc in
	124) r="guest timed out after ${timeout}s and was killed"
	     [ -e "$out/guest.log" ] || r="no boot of the guest started its job; QEMU was killed" ;;
	125) r="guest died (crash, panic or reboot) before finishing" ;;
	*) r="guest job ended with status $boot_rc"
	   [ ! -s "$out/results.aborted" ] || r="$r: $(cat "$out/results.aborted")" ;;
	esac
	report $((n + 1)) fail "guest ran all cases and powered off" "$r"
	# (Shown at the first unreported case already, if there was one.)
	[ "$seen" -lt "$n" ] && [ ! -s "$out/results.aborted" ] || guest_end_report
	echo "# --- last lines of $out/guest.log"
	tail -n 10 "$out/guest.log" 2>/dev/null | sed 's/^/#   /'
fi

# Host check 2: no bug report anywhere on the serial console (boot, between
# cases, or just before a crash that the per-case scan could not see).
# (Marker and init lines carry case names and paths: never count them.)
# A boot that never reached the job (scripts/vm/boot.sh boots again) is
# scanned too: a report there fails the run like any other.
# (The console of a boot that died of a foreign report is left out: its
# report was printed above, when the runner booted again.)
hits=$(for f in "$out"/console.boot*.log "$out"/console.foreign*.boot*.log "$out/console.log"; do
	[ -f "$f" ] || continue
	console_report_lines "$f" | sed "s|^|${f##*/}:|"
done | head -n 20)
if [ -z "$hits" ]; then
	report $((n + 2)) ok "serial console has no kernel bug reports" ""
else
	report $((n + 2)) fail "serial console has no kernel bug reports" \
		"$(echo "$hits" | head -n 1 | sed 's/^[^:]*:[0-9]*:\(\[[ 0-9.]*\] \)\{0,1\}//')"
	echo "# --- report lines in $out/console*.log (file:line:text)"
	echo "$hits" | sed 's/^/#   /'
fi

# Host check 3: the guest's clock kept the host's pace (tests/vm/clock.sh);
# a wrong one skews every timeout and stall detector of the run.
if [ -n "${SRPT_VM_ICOUNT:-}" ]; then
	report $((n + 3)) skip "guest clock kept the host's pace" "-icount: guest time follows instructions"
else
	boots=$((1 + $(find "$out" -maxdepth 1 -name 'console.boot*.log' | wc -l)))
	clock=$(guest_clock_verdict "$out/console.log" "$out/elapsed" "$boots")
	case $? in
	0) report $((n + 3)) ok "guest clock kept the host's pace" ""; echo "# guest clock: $clock" ;;
	2) report $((n + 3)) skip "guest clock kept the host's pace" "$clock" ;;
	*) report $((n + 3)) fail "guest clock kept the host's pace" "$clock"
	   grep -a -E 'tsc: |clocksource: ' "$out/console.log" | head -n 12 | sed 's/^/#   /' ;;
	esac
fi

echo "# guest boot+run: $(cat "$out/elapsed" 2>/dev/null || echo '?')s, total ${secs}s"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
