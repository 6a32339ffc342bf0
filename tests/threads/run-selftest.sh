#!/bin/sh
# Runs the threaded tests, then proves that they can fail; ends with the
# line "N passed, N failed".
#
# usage: run-selftest.sh BINARY OUTDIR
#
# 1. Every test, under ThreadSanitizer with halt_on_error: a report aborts
#    the test it happened in, which then counts as failed (gtest never
#    prints its OK line).
# 2. The self-test: each SRPT_THREADS_BREAK mode (break_mode.h) reruns its
#    test with the harness breaking the rule that test checks; TSan must
#    report it. A mode TSan stays silent on is a failure: the test could
#    not have failed.
#
# Without ASLR: gcc 12's TSan runtime needs the kernel's mmap layout to
# fit its shadow, which a host with more mmap randomisation bits breaks.
set -u
bin=$1
out=$2
norand="setarch $(uname -m) -R"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"

# Step 1 is tests/unit's runner (the same counting), run through setarch.
summary=$("$(dirname "$0")/../unit/run-tests.sh" setarch "$out/test.log" "$(uname -m)" -R "$bin" |
	tee /dev/stderr | tail -n 1)
passed=$(echo "$summary" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
failed=$(echo "$summary" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
if [ -z "$passed" ] || [ "$passed" -eq 0 ]; then
	echo "run-selftest: no test passed (last line: $summary)"
	passed=${passed:-0}
	failed=$((${failed:-0} + 1))
fi

# mode and the test it breaks
for pair in gate:DispatchGateThreadsTest.* srq:SrqThreadsTest.* ring:RecvRingCacheThreadsTest.*; do
	mode=${pair%%:*}
	filter=${pair#*:}
	mlog=$out/selftest-$mode.log
	SRPT_THREADS_BREAK=$mode $norand "$bin" --gtest_filter="$filter" >"$mlog" 2>&1
	if grep -q 'WARNING: ThreadSanitizer:' "$mlog"; then
		echo "self-test $mode: ThreadSanitizer reported the broken rule ($(grep -m1 'WARNING: ThreadSanitizer:' "$mlog" | sed 's/ (pid=.*//'))"
		passed=$((passed + 1))
	else
		echo "self-test $mode: no ThreadSanitizer report; the test cannot fail (log: $mlog)"
		failed=$((failed + 1))
	fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
