#!/bin/bash
# `make check`: every test layer, in order of cost, each installing what it
# needs. Each suite prints its own results ending in "N passed, N failed";
# this script adds them up and prints the grand total as its last line.
# A suite that fails without printing its summary counts as one failure.
#
# Kernels (scripts/kernel/kernels): the host suites run once; the module is
# built and checked for every kernel; the guest suite runs in full on
# SRPT_CHECK_FULL (default 6.12, the LTS most new servers run) and on the
# others the cases of SRPT_CHECK_CASES: one
# each of login + I/O (10), hostile (20), fault walk (35), hot-unplug (06)
# and SRQ (41), so that the whole run stays near 50 minutes on 2 cores.
# SRPT_CHECK_FULL=all (`make check-kernels`) runs every case on every
# kernel; SRPT_CHECK_KERNELS="6.1 7.3" limits the kernels.
set -u
start=$(date +%s)
here=$(cd "$(dirname "$0")/.." && pwd)
logdir=$here/build/check
mkdir -p "$logdir"

# shellcheck source=suites.sh
. "$here/scripts/suites.sh"

"$here/scripts/install-deps.sh" build unit fuzz vm report || { echo "installing dependencies failed"; echo "0 passed, 1 failed"; exit 1; }

kernels=${SRPT_CHECK_KERNELS:-$("$here/scripts/kernel/info.sh" --names | tr '\n' ' ')}
full=${SRPT_CHECK_FULL:-6.12}
subset=${SRPT_CHECK_CASES:-10 20 35 06 41}

run_suite unit make -s -C "$here" unit
run_suite threads make -s -C "$here" threads
run_suite fuzz make -s -C "$here" fuzz-check
# The guest runner's own helpers on made-up input (seconds, no guest).
run_suite vm-lib-checks "$here/tests/vm/lib-checks.sh"
# The bench report's arithmetic (spread, CPU per I/O, which guest the I/O
# goals come from) on made-up output.
run_suite bench-report python3 "$here/tests/bench/report_test.py"
# The probes' fallback code, on the first kernel (its normal build follows).
run_suite module-fallback make -s -C "$here" module-fallback KVER="${kernels%% *}"
for k in $kernels; do
	run_suite "module-$k" make -s -C "$here" module-check KVER="$k"
done
# make install/uninstall into a scratch root, each kernel's module.
for k in $kernels; do
	run_suite "install-$k" make -s -C "$here" install-check KVER="$k"
done
# make deb, lintian, and DKMS building the packaged source (first kernel).
run_suite deb make -s -C "$here" deb-check KVER="${kernels%% *}"
# The guests take each kernel's module from build/kernels/<abi>/ (built
# above; `make vm-check` would rebuild the checkout's for every kernel).
for k in $kernels; do
	if [ "$full" = all ] || [ "$full" = "$k" ]; then
		echo "=== kernel $k: every guest case"
		run_suite "guest-$k" env KVER="$k" SRPT_VM_RUNS="check-$k" "$here/tests/vm/suite.sh"
	else
		echo "=== kernel $k: guest cases $subset"
		run_suite "guest-$k" env KVER="$k" SRPT_VM_RUNS="check-$k" SRPT_VM_CASES="$subset" \
			"$here/tests/vm/suite.sh"
	fi
done
run_suite guest-selftest "$here/tests/vm/selftest.sh"

suites_finish "$start"
