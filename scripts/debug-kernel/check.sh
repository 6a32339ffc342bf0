#!/bin/bash
# `make check-debug`: a host test of the runner's leak checks
# (tests/vm/lib-checks.sh), the debug kernel (scripts/debug-kernel/build.sh; built
# once per machine, then cached), ib_srpt.ko and the test tools built against
# it, the detectors' self-test (tests/vm/selftest.sh --debug: each detector
# must fail its case), then every guest case on it (tests/vm/suite.sh with
# SRPT_DEBUG_KERNEL=1).  Prints each step's time; each suite ends in
# "N passed, N failed", and the last line is the grand total.
#
# Environment: SRPT_DEBUG_CASES="01 10 ..." runs only the cases with these
# numbers; SRPT_VM_SHARDS (default 3 here, 1 with SRPT_DEBUG_CASES: the
# whole suite takes hours on the debug kernel, and three guests finish it
# well before two; see the shards below).  Timeouts: the guest and per-case
# limits of the suite scaled for a kernel with KASAN and lockdep under TCG
# (a limit, not a check: cases keep their own bounds).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd -P)
logdir=$here/build/check-debug
mkdir -p "$logdir"
t_all=$(date +%s)

step() { # step NAME CMD...: runs CMD, its output into the log; status, time
	local name=$1 s rc
	shift
	s=$(date +%s)
	echo "=== $name: $*"
	"$@" >"$logdir/$name.log" 2>&1
	rc=$?
	echo "=== $name: exit $rc after $(($(date +%s) - s)) s (log: $logdir/$name.log)"
	[ $rc -eq 0 ] || tail -n 30 "$logdir/$name.log"
	return $rc
}
# shellcheck source=../suites.sh
. "$here/scripts/suites.sh"
abort() { echo "$*"; echo "0 passed, 1 failed"; exit 1; }

"$here/scripts/install-deps.sh" build vm || abort "installing dependencies failed"
# The runner's leak checks on made-up input first (a second, no guest).
run_suite lib-checks "$here/tests/vm/lib-checks.sh"

t=$(date +%s)
echo "=== debug kernel: scripts/debug-kernel/build.sh"
dir=$("$here/scripts/debug-kernel/build.sh") || abort "building the debug kernel failed"
echo "=== debug kernel $(cat "$dir/kver") in $dir: built in $(cat "$dir/build-seconds") s; this run spent $(($(date +%s) - t)) s on it"

step module-debug make -s --no-print-directory -C "$here" module-debug ||
	abort "building ib_srpt.ko for the debug kernel failed"
export SRPT_DEBUG_KERNEL=1
SRPT_ROOT=$here
# shellcheck source=../vm/common.sh
. "$here/scripts/vm/common.sh"
# (common.sh exported KVER and KDIR: srpt_test_ibcm.ko goes to
# build/tools/<kver>/, built against the debug tree.)
step tools-debug make -s --no-print-directory -C "$here" tools ||
	abort "building the test tools for the debug kernel failed"
step prepare "$here/scripts/vm/prepare.sh" || abort "preparing the guest for the debug kernel failed"

run_suite debug-selftest "$here/tests/vm/selftest.sh" --debug
# SRPT_DEBUG_CASES: tests/vm/suite.sh's SRPT_VM_CASES (case numbers).
# Three guests, the most two cores carry without starving the initiator's
# timers; a subset runs in one.
shards=3
[ -z "${SRPT_DEBUG_CASES:-}" ] || shards=1
SRPT_VM_SHARDS=${SRPT_VM_SHARDS:-$shards} SRPT_VM_CASES=${SRPT_DEBUG_CASES:-} run_suite debug-guest "$here/tests/vm/suite.sh" \
	--timeout 21600 --case-timeout 3600

echo
echo "=== summary (make check-debug, $(($(date +%s) - t_all)) s)"
suites_summary
