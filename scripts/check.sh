#!/bin/bash
# `make check`: every test layer, in order of cost, each installing what it
# needs. Each suite prints its own results ending in "N passed, N failed";
# this script adds them up and prints the grand total as its last line.
# A suite that fails without printing its summary counts as one failure.
#
# Kernels (scripts/kernel/kernels): the host suites run once; the module is
# built and checked for every kernel; the guest suite runs in full on
# SRPT_CHECK_FULL (default 6.12, the LTS most new servers run) and on the
# others the cases of SRPT_CHECK_CASES (default 10 20 35 06 41 56): one
# each of login + I/O (10), hostile (20), fault walk (35), hot-unplug (06),
# SRQ (41) and a late Last WQE Reached on the SRQ (56), few enough that the
# whole run aims to stay near 50 minutes on 2 cores.
# SRPT_CHECK_FULL=all (`make check-kernels`) runs every case on every
# kernel; SRPT_CHECK_KERNELS="6.1 7.3" limits the kernels.
#
# Guest case 60 (the Debian package installed, upgraded, restored, removed,
# DKMS building in the guest) is the longest single run and not part of
# the default: SRPT_CHECK_PACKAGE=K runs it on kernel K in its own guest,
# started once the modules are built and waited for at the end, so that
# its DKMS builds overlap the other suites. `make check-package` runs it on
# every kernel.
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
subset=${SRPT_CHECK_CASES:-10 20 35 06 41 56}

run_suite unit make -s -C "$here" unit
run_suite threads make -s -C "$here" threads
run_suite fuzz make -s -C "$here" fuzz-check
# No tracked file names an issue of the tracker (seconds).
run_suite tracker-refs "$here/scripts/check-no-tracker-refs.sh"
# The documentation keeps up with the code: README.md under 400 lines, with
# a table row for every module parameter and configfs attribute the module
# registers, and every guest case opening with its numbered header (the
# rules: scripts/check-docs.sh; seconds).
run_suite docs "$here/scripts/check-docs.sh"
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
pkg=${SRPT_CHECK_PACKAGE:-}
if [ -n "$pkg" ]; then
	# What run.sh would prepare for itself, done here so that the guest
	# suites below, which prepare too, do not race it.
	if "$here/scripts/install-deps.sh" vm deb >"$logdir/package-prepare.log" 2>&1 &&
		KVER=$pkg "$here/scripts/vm/prepare.sh" >>"$logdir/package-prepare.log" 2>&1 &&
		KVER=$pkg make -s --no-print-directory -C "$here" tools >>"$logdir/package-prepare.log" 2>&1 &&
		"$here/tests/vm/packages.sh" >>"$logdir/package-prepare.log" 2>&1; then
		start_suite "package-$pkg" env KVER="$pkg" SRPT_VM_SKIP_PREPARE=1 "$here/tests/vm/run.sh" \
			--out "$here/build/vm/runs/check-package-$pkg" --case-timeout 5400 --timeout 6000 60
	else
		echo "### preparing case 60 on $pkg failed (log: $logdir/package-prepare.log): counted as 1 failure"
		tail -n 20 "$logdir/package-prepare.log"
		total_fail=$((total_fail + 1))
		pkg=
	fi
fi
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
[ -z "$pkg" ] || finish_suite "package-$pkg"

suites_finish "$start"
