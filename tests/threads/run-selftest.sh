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

log=$out/test.log
status_file=$log.status
{ $norand "$bin" 2>&1; echo $? >"$status_file"; } | tee "$log"
status=$(cat "$status_file")
rm -f "$status_file"
ran=$(grep -c '^\[ RUN      \]' "$log")
passed=$(grep -c '^\[       OK \]' "$log")
failed=$((ran - passed))
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
	echo "run-selftest: $bin exited with status $status after its tests"
	failed=1
fi
if [ "$ran" -eq 0 ]; then
	echo "run-selftest: no test ran"
	failed=$((failed + 1))
fi

# mode and the test it breaks
for pair in gate:DispatchGateThreadsTest.* srq:SrqThreadsTest.*; do
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
