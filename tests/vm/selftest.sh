#!/bin/bash
# Self-test of the VM test runner: proves that a kernel report in the guest
# turns into a test failure (so that `make vm-check` cannot pass over a
# crashing or leaking module).  Called by `make check` (and with --debug by
# `make check-debug`).
#
# It runs `tests/vm/run.sh --selftest` (one guest boot), whose guest loads a
# test-only module (tests/vm/selftest/srpt_vm_selftest.c) several times and
# the module under test once, then crashes on purpose:
#   01-none      mode=none -> must be reported "ok" (the runner is not failing
#                everything), and the console up to its end holds no report
#                (a clean boot gives no false hit)
#   10-srpt-leak ib_srpt leaks three allocations ("leak N" in ib_srpt/fault) and
#                is unloaded -> "not ok", the module exit's WARNING with the
#                exact counts (the case checks them); on the debug kernel
#                also the runner's kmemleak scan naming ib_srpt
#   02-warn      mode=warn -> must be "not ok", reason naming WARNING
#   03-oops      mode=oops -> must be "not ok", reason naming Oops (the guest survives it)
#   12-spin      no scheduling until reported -> "not ok", reason naming "soft
#                lockup" (the guests' threshold is 60 s, scripts/vm/boot.sh);
#                before 03-oops, whose half-loaded module stays behind, and
#                before 09-leak, whose module stays loaded
#   04-crash     sysrq-c   -> must be "not ok" (the guest died during it), and
#                not booted again (flag O: out-of-tree modules were loaded)
# With --debug (the debug kernel, SRPT_DEBUG_KERNEL=1), instead of warn and
# oops, one case per detector, each "not ok" with a reason naming it:
#   07-lockorder  AB-BA mutex order -> "possible circular locking dependency"
#                (first: lockdep stops at its first report and at any taint)
#   08-atomic    GFP_KERNEL under a spinlock -> "BUG: sleeping function
#                called from invalid context"
#   06-kasan     read after kfree -> "BUG: KASAN: slab-use-after-free"
#   09-leak      a kmalloc never freed -> the runner's kmemleak scan, naming
#                srpt_vm_selftest
# and the host checks must fail: the guest did not run all cases (it died),
# the serial console holds the reports; run.sh must exit non-zero.  This
# script PASSES exactly when all of that holds. Without --debug, three more
# runs prove the runner's own rules: a boot stuck before its job is booted
# again, a foreign crash is booted again once, and a guest given a fiftieth
# of the host's TSC frequency fails the clock check (tests/vm/clock.sh).
#
# usage: tests/vm/selftest.sh [--debug] [run.sh options]
# Output: the runner's TAP indented as diagnostics, then one TAP line and
# "1 passed, 0 failed" or "0 passed, 1 failed".  Exit status 0 on pass.
set -uo pipefail
SRPT_ROOT=$(cd "$(dirname "$0")/../.." && pwd -P)
debug=0
if [ "${1:-}" = --debug ]; then
	debug=1
	shift
	export SRPT_DEBUG_KERNEL=1
fi
log=$SRPT_ROOT/build/vm/selftest-run.log
[ $debug = 0 ] || log=$SRPT_ROOT/build/vm/selftest-debug-run.log
mkdir -p "$(dirname "$log")"

if [ $debug = 1 ]; then
	modes=none,lockorder,atomic,kasan,spin,leak,srpt-leak,crash
	what="lockdep, atomic sleep, KASAN, kmemleak, module-exit leak, soft lockup and crash"
	out=$SRPT_ROOT/build/vm/runs/selftest-debug
else
	modes=none,srpt-leak,warn,spin,oops,crash
	what="module-exit leak, WARNING, Oops, soft lockup and crash"
	out=$SRPT_ROOT/build/vm/runs/selftest
fi
"$SRPT_ROOT/tests/vm/run.sh" --selftest=$modes --out "$out" "$@" >"$log" 2>&1
rc=$?
sed 's/^/# | /' "$log"

problems=()
[ "$rc" -ne 0 ] || problems+=("run.sh exited 0 although the guest had kernel reports and crashed")
grep -Eq '^ok [0-9]+ - 01-none$' "$log" ||
	problems+=("the control case (mode=none) was not reported ok")
# The console up to the control case's end: boot and a clean case, no report.
pats=$(grep -v -e '^#' -e '^$' "$SRPT_ROOT/tests/vm/kernel-reports.txt")
early=$(awk '/srpt-vm-mark: end 1 01-none/ { exit } { print }' "$out/console.log" 2>/dev/null |
	grep -v -e 'srpt-vm-mark: ' -e 'srpt-vm-init: ' | grep -E -- "$pats" | head -n 3)
[ -z "$early" ] || problems+=("boot or the control case logged a report (a false hit?): $early")
grep -q 'srpt-vm-mark: end 1 01-none' "$out/console.log" 2>/dev/null ||
	problems+=("no end marker of the control case on the console")
# expect CASE ERE WHAT: the case is "not ok" with a reason matching ERE.
expect() {
	local said
	grep -Eq "^not ok [0-9]+ - $1: $2" "$log" && return
	said=$(grep -E -m 1 "^(not )?ok [0-9]+ - $1(:|\$)" "$log" | cut -c 1-300)
	problems+=("$3 was not reported 'not ok' with a reason matching /$2/ (the runner said: ${said:-nothing of the case})")
}
if [ $debug = 1 ]; then
	expect 07-lockorder '.*possible circular locking dependency' "the lockdep AB-BA case"
	expect 08-atomic '.*BUG: sleeping function called from invalid context' "the sleep-in-atomic case"
	expect 06-kasan '.*BUG: KASAN: slab-use-after-free' "the KASAN use-after-free case"
	expect 09-leak 'kmemleak: [0-9]+ unreferenced objects, backtrace in \[srpt_vm_selftest\]' \
		"the kmemleak case"
	# Reason = the runner's checks only (the script's own count check passed).
	expect 10-srpt-leak 'kmemleak: [0-9]+ unreferenced objects, backtrace in \[ib_srpt, unloaded\].*; kernel log reports: WARNING.*srpt_counters_exit_check' \
		"the ib_srpt leak case (kmemleak and the module-exit WARNING)"
else
	expect 10-srpt-leak 'kernel log reports: WARNING.*srpt_counters_exit_check' \
		"the ib_srpt leak case (module-exit WARNING)"
	expect 02-warn '.*WARNING' "the WARN_ON case"
	expect 03-oops '.*Oops' "the Oops case"
fi
expect 12-spin '.*soft lockup' "the soft-lockup case (a CPU that never schedules, up to 180 s)"
grep -Eq '^not ok [0-9]+ - serial console has no kernel bug reports: ' "$log" ||
	problems+=("the host's console scan did not report the kernel reports")
grep -Eq '^not ok [0-9]+ - 04-crash: guest stopped' "$log" ||
	problems+=("the case during which the guest crashed was not reported 'not ok'")
grep -Eq '^not ok [0-9]+ - guest ran all cases and powered off: guest died' "$log" ||
	problems+=("the host did not report that the guest died")
grep -Eq '^[0-9]+ passed, [0-9]+ failed' "$log" ||
	problems+=("run.sh printed no 'N passed, N failed' line")
# The crash came with the self-test module and ib_srpt loaded (flag O):
# the runner must not take it for a foreign one and boot again.
! grep -q '^# vm: the guest died during' "$log" ||
	problems+=("a crash with out-of-tree modules loaded was taken for a foreign one (booted again)")

# A boot that does not reach its job is booted once more (scripts/vm/boot.sh):
# a first boot given 2 s must be retried and the case then pass; two boots
# given 2 s each must fail every case, saying so.
if [ $debug = 0 ]; then
	also="; a boot stuck before its job was booted again"
	blog=$SRPT_ROOT/build/vm/selftest-boot.log
	bout=$SRPT_ROOT/build/vm/runs/selftest-boot
	SRPT_VM_BOOT_TIMEOUT_FIRST=2 "$SRPT_ROOT/tests/vm/run.sh" --out "$bout" "$@" 01-load >"$blog" 2>&1
	brc=$?
	sed 's/^/# | /' "$blog"
	{ [ "$brc" = 0 ] && grep -q '^ok 1 - 01-load$' "$blog" &&
		grep -q '^# vm: booting again (attempt 2 of 2)' "$blog" &&
		[ -e "$bout/console.boot1.log" ]; } ||
		problems+=("a first boot stopped after 2 s was not booted again to pass 01-load (see $blog)")
	SRPT_VM_BOOT_TIMEOUT=2 "$SRPT_ROOT/tests/vm/run.sh" --out "$bout" "$@" 01-load >"$blog" 2>&1
	brc=$?
	sed 's/^/# | /' "$blog"
	{ [ "$brc" != 0 ] &&
		grep -q '^not ok 1 - 01-load: no boot of the guest started its job' "$blog" &&
		grep -q '^# vm: no boot of 2 reached the job' "$blog"; } ||
		problems+=("two boots stopped after 2 s each were not reported as failing 01-load (see $blog)")

	# A guest that dies while no out-of-tree module was ever loaded in its
	# boot (tests/vm/foreign.sh) is booted once more for the cases left: a
	# crash in the first boot only passes after that boot, keeping the first
	# console; a crash in every boot fails after the one boot added.
	also="$also; a foreign crash was booted again once"
	fout=$SRPT_ROOT/build/vm/runs/selftest-foreign
	"$SRPT_ROOT/tests/vm/run.sh" --selftest=foreign --out "$fout" "$@" >"$blog" 2>&1
	brc=$?
	sed 's/^/# | /' "$blog"
	{ [ "$brc" = 0 ] && grep -q '^ok 1 - 11-foreign$' "$blog" &&
		[ "$(grep -c '^# vm: the guest died during 11-foreign of a kernel report' "$blog")" = 1 ] &&
		grep -q '^ok 3 - serial console has no kernel bug reports$' "$blog" &&
		grep -q 'sysrq triggered crash' "$fout/console.foreign1.log" &&
		grep -q '^crash' "$fout/foreign-crashed"; } ||
		problems+=("a foreign crash in the first boot was not booted again to pass (see $blog)")
	SRPT_CASE_FOREIGN_ALWAYS=1 "$SRPT_ROOT/tests/vm/run.sh" --selftest=foreign --out "$fout" "$@" >"$blog" 2>&1
	brc=$?
	sed 's/^/# | /' "$blog"
	{ [ "$brc" != 0 ] && grep -q '^not ok 1 - 11-foreign: guest stopped' "$blog" &&
		[ "$(grep -c '^# vm: the guest died during 11-foreign of a kernel report' "$blog")" = 1 ] &&
		grep -q '^not ok 3 - serial console has no kernel bug reports: ' "$blog" &&
		[ "$(grep -c '^crash' "$fout/foreign-crashed")" = 2 ]; } ||
		problems+=("a foreign crash in every boot did not fail after one boot more (see $blog)")

	# A guest whose clock runs at the wrong pace (tests/vm/clock.sh): given a
	# fiftieth of the host's TSC frequency, as a calibration under load once
	# made it (53.551 MHz), the run must fail the clock check.
	also="$also; a guest clock 50 times fast failed its check"
	khz=$("$SRPT_ROOT/build/vm/tsc-khz" 2>/dev/null)
	if [ -z "$khz" ]; then
		problems+=("no host TSC frequency from build/vm/tsc-khz (scripts/vm/boot.sh builds it)")
	else
		SRPT_VM_TSC_KHZ=$((khz / 50)) "$SRPT_ROOT/tests/vm/run.sh" --out "$SRPT_ROOT/build/vm/runs/selftest-clock" \
			"$@" 01-load >"$blog" 2>&1
		brc=$?
		sed 's/^/# | /' "$blog"
		{ [ "$brc" != 0 ] &&
			grep -Eq "^not ok [0-9]+ - guest clock kept the host's pace: the guest clock ran fast" "$blog"; } ||
			problems+=("a guest given a fiftieth of the TSC frequency did not fail the clock check (see $blog)")
	fi
fi

if [ ${#problems[@]} -eq 0 ]; then
	echo "ok 1 - vm runner self-test: $what were reported as failures${also:-}"
	echo "1 passed, 0 failed"
	exit 0
fi
for p in "${problems[@]}"; do
	echo "# problem: $p"
done
echo "# full runner output: $log"
echo "not ok 1 - vm runner self-test: $what were reported as failures${also:-}"
echo "0 passed, 1 failed"
exit 1
