#!/bin/bash
# Runs the fuzz targets: for each, replays its committed corpus
# (tests/fuzz/corpus/<target>/, every input once) and then fuzzes it for
# FUZZ_SECONDS seconds, starting from that corpus. Ends with the line
# "N passed, N failed" (a replay and a fuzz run per target, each a test).
#
# usage: run.sh OUT TARGET...      (OUT: build/fuzz, holding bin/fuzz-<target>)
#
# A crash, a failed check (the target aborts), a sanitizer report, a timeout
# (an input running longer than FUZZ_TIMEOUT seconds) or running out of
# memory fails the run; libFuzzer saves the input as
# OUT/artifacts/<target>-crash-<sha1> (or -timeout-, -oom-) and the line to
# reproduce it is printed. New inputs go to OUT/work/<target>/, emptied
# first, never into the committed corpus.
#
# LeakSanitizer is off: the core's own allocations are counted by the fake
# (srpt_kzalloc) and checked after every input; what the fake keeps on
# purpose (objects it must not free while the code under test may name
# them) would otherwise be reported.
set -u
out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
seconds=${FUZZ_SECONDS:-20}
timeout=${FUZZ_TIMEOUT:-10}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:quarantine_size_mb=64:abort_on_error=1}
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
	[ $rc -eq 0 ] || { tail -n 60 "$log.replay.log"; echo "log: $log.replay.log"; }
	result "$t corpus replay" $rc

	echo "--- $t: fuzzing for ${seconds}s"
	work=$out/work/$t
	rm -rf "$work"
	mkdir -p "$work"
	"$bin" -detect_leaks=0 -timeout="$timeout" -max_total_time="$seconds" \
		-print_final_stats=1 -artifact_prefix="$out/artifacts/$t-" \
		"$work" "$corpus" >"$log.fuzz.log" 2>&1
	rc=$?
	grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb)|#[0-9]+ +DONE' "$log.fuzz.log" |
		sed 's/^/    /'
	if [ $rc -ne 0 ]; then
		tail -n 80 "$log.fuzz.log"
		a=$(grep -o "Test unit written to .*" "$log.fuzz.log" | sed 's/Test unit written to //')
		echo "log: $log.fuzz.log"
		[ -n "$a" ] && echo "reproduce: $bin $a"
	fi
	result "$t fuzzing ${seconds}s" $rc
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
