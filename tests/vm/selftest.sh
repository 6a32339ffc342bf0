#!/bin/bash
# Self-test of the VM test runner: proves that a kernel WARNING or Oops in the
# guest turns into a test failure (so that `make vm-check` cannot pass over a
# crashing module).  Called by `make check`.
#
# It runs `tests/vm/run.sh --selftest` (one guest boot), whose guest loads a
# test-only module (tests/vm/selftest/srpt_vm_selftest.c) three times, then
# crashes on purpose:
#   01-none  mode=none -> must be reported "ok"     (the runner is not failing everything)
#   02-warn  mode=warn -> must be "not ok", reason naming WARNING
#   03-oops  mode=oops -> must be "not ok", reason naming Oops (the guest survives it)
#   04-crash sysrq-c   -> must be "not ok" (the guest died during it)
# and the host checks must fail: the guest did not run all cases (it died),
# the serial console holds the reports; run.sh must exit non-zero.  This
# script PASSES exactly when all of that holds.
#
# Output: the runner's TAP indented as diagnostics, then one TAP line and
# "1 passed, 0 failed" or "0 passed, 1 failed".  Exit status 0 on pass.
set -uo pipefail
SRPT_ROOT=$(cd "$(dirname "$0")/../.." && pwd -P)
log=$SRPT_ROOT/build/vm/selftest-run.log
mkdir -p "$(dirname "$log")"

"$SRPT_ROOT/tests/vm/run.sh" --selftest=none,warn,oops,crash "$@" >"$log" 2>&1
rc=$?
sed 's/^/# | /' "$log"

problems=()
[ "$rc" -ne 0 ] || problems+=("run.sh exited 0 although the guest WARNed, Oopsed and crashed")
grep -Eq '^ok [0-9]+ - 01-none$' "$log" ||
	problems+=("the control case (mode=none) was not reported ok")
grep -Eq '^not ok [0-9]+ - 02-warn: .*WARNING' "$log" ||
	problems+=("the WARN_ON case was not reported 'not ok' with a reason naming WARNING")
grep -Eq '^not ok [0-9]+ - 03-oops: .*Oops' "$log" ||
	problems+=("the Oops case was not reported 'not ok' with a reason naming Oops")
grep -Eq '^not ok [0-9]+ - serial console has no kernel bug reports: ' "$log" ||
	problems+=("the host's console scan did not report the WARNING/Oops")
grep -Eq '^not ok [0-9]+ - 04-crash: guest stopped' "$log" ||
	problems+=("the case during which the guest crashed was not reported 'not ok'")
grep -Eq '^not ok [0-9]+ - guest ran all cases and powered off: guest died' "$log" ||
	problems+=("the host did not report that the guest died")
grep -Eq '^[0-9]+ passed, [0-9]+ failed' "$log" ||
	problems+=("run.sh printed no 'N passed, N failed' line")

if [ ${#problems[@]} -eq 0 ]; then
	echo "ok 1 - vm runner self-test: guest WARNING, Oops and crash were reported as failures"
	echo "1 passed, 0 failed"
	exit 0
fi
for p in "${problems[@]}"; do
	echo "# problem: $p"
done
echo "# full runner output: $log"
echo "not ok 1 - vm runner self-test: guest WARNING, Oops and crash were reported as failures"
echo "0 passed, 1 failed"
exit 1
