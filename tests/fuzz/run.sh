#!/bin/bash
# Runs the fuzz targets: for each, replays its committed corpus
# (tests/fuzz/corpus/<target>/, every input once) and then fuzzes it for
# FUZZ_SECONDS seconds, starting from that corpus. Ends with the line
# "fuzz: N passed, N failed" (a replay and a fuzz run per target, each a test).
#
# usage: run.sh OUT TARGET...      (OUT: build/fuzz, holding bin/fuzz-<target>)
#
# A crash, a failed check (the target aborts), a sanitizer report, a timeout
# (an input running longer than FUZZ_TIMEOUT seconds) or running out of
# memory fails the run; libFuzzer saves the input as
# OUT/artifacts/<target>-crash-<sha1> (or -timeout-, -oom-) and the line to
# reproduce it is printed. New inputs go to OUT/work/<target>/, emptied
# first, never into the committed corpus. Long runs are cut into rounds of
# at most FUZZ_ROUND seconds, each a fresh process continuing from the inputs
# found so far: the fake kernel keeps what it must never free (objects the
# code under test may still name) until the process exits, so a process's
# memory grows with the inputs it runs (srp_iu passes libFuzzer's 2 GB
# limit in rounds of a few minutes).
#
# LeakSanitizer is off: the core's own allocations are counted by the fake
# (srpt_kzalloc) and checked after every input, and what the fake keeps on
# purpose would be reported.
set -u
out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
seconds=${FUZZ_SECONDS:-20}
round=${FUZZ_ROUND:-30}
timeout=${FUZZ_TIMEOUT:-10}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:quarantine_size_mb=64}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

passed=0 failed=0
result() {
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
		echo "PASS $1"
	else
		failed=$((failed + 1))
		echo "FAIL $1"
	fi
}

# What a failed run says: the failed checks (or the sanitizer's report) and
# libFuzzer's verdict, without the input's full ABI trace.
show_failure() {
	if grep -q "check(s) failed" "$1"; then
		sed -n '/check(s) failed/,/^input (/p' "$1"
	else
		grep -E -A12 '^==[0-9]+==ERROR|runtime error' "$1" | head -n 40
	fi
	grep -E '^(SUMMARY|==[0-9]+== ERROR: libFuzzer)' "$1"
	echo "log: $1"
}

mkdir -p "$out/artifacts" "$out/logs"
for t in "$@"; do
	bin=$out/bin/fuzz-$t
	corpus=$here/corpus/$t
	log=$out/logs/$t
	seeds=("$corpus"/*)
	echo "--- $t: replaying ${#seeds[@]} corpus inputs"
	"$bin" -detect_leaks=0 -timeout="$timeout" \
		-artifact_prefix="$out/artifacts/$t-" "${seeds[@]}" >"$log.replay.log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		show_failure "$log.replay.log"
		grep '^Running:' "$log.replay.log" | tail -n 1
	fi
	result "$t corpus replay" $rc

	echo "--- $t: fuzzing for ${seconds}s"
	work=$out/work/$t
	rm -rf "$work"
	mkdir -p "$work"
	: >"$log.fuzz.log"
	left=$seconds execs=0 rc=0
	while [ "$left" -gt 0 ] && [ $rc -eq 0 ]; do
		n=$((left < round ? left : round))
		"$bin" -detect_leaks=0 -timeout="$timeout" -max_total_time="$n" \
			-print_final_stats=1 -artifact_prefix="$out/artifacts/$t-" \
			"$work" "$corpus" >>"$log.fuzz.log" 2>&1
		rc=$?
		e=$(grep '^stat::number_of_executed_units' "$log.fuzz.log" | tail -n 1 | awk '{print $2}')
		execs=$((execs + ${e:-0}))
		left=$((left - n))
	done
	echo "    $execs inputs run, $(ls "$work" | wc -l) new inputs kept in $work," \
		"peak RSS $(grep '^stat::peak_rss_mb' "$log.fuzz.log" | awk '{print $2}' | sort -n | tail -n 1) MB"
	if [ $rc -ne 0 ]; then
		show_failure "$log.fuzz.log"
		a=$(grep -o "Test unit written to .*" "$log.fuzz.log" | sed 's/Test unit written to //')
		[ -n "$a" ] && echo "reproduce: $bin $a"
	fi
	result "$t fuzzing ${seconds}s" $rc
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
