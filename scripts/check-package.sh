#!/bin/bash
# `make check-package`: guest case 60 (tests/vm/cases/60-package.sh: the
# Debian package installed with DKMS building in the guest, upgraded under a
# live session, restored after a simulated reboot, removed) on every kernel
# of scripts/kernel/kernels, one guest each. A kernel whose headers the
# guest's root lacks (7.3, built in the trixie chroot) skips, saying why.
# `make check` leaves it out; SRPT_CHECK_PACKAGE=KVER runs it there beside
# the other suites (scripts/check.sh).
# Prints each kernel's results, then the grand total as the last line.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
logdir=$here/build/check
mkdir -p "$logdir"
# shellcheck source=suites.sh
. "$here/scripts/suites.sh"

start=$(date +%s)
kernels=${SRPT_CHECK_KERNELS:-$("$here/scripts/kernel/info.sh" --names | tr '\n' ' ')}
for k in $kernels; do
	make -s -C "$here" module KVER="$k" >/dev/null || { echo "module build for $k failed"; echo "0 passed, 1 failed"; exit 1; }
	run_suite "package-$k" env KVER="$k" "$here/tests/vm/run.sh" \
		--out "$here/build/vm/runs/package-$k" --case-timeout 5400 --timeout 6000 60
done
suites_finish "$start"
