#!/bin/sh
# Runs the unit-test binary and ends with the line "N passed, N failed".
#
# usage: run-tests.sh BINARY LOG [gtest arguments...]
#
# The counts come from gtest's per-test lines: a test is counted when it
# started ("[ RUN      ]") and passed when it ended with "[       OK ]", so a
# test that crashed the binary (an ASan report, an abort) counts as failed
# even though gtest never printed its result. A binary that exits non-zero
# after every test passed (LeakSanitizer at exit) adds one failure.
set -u
bin=$1
log=$2
shift 2

status_file=$log.status
{ "$bin" "$@" 2>&1; echo $? >"$status_file"; } | tee "$log"
status=$(cat "$status_file")
rm -f "$status_file"

ran=$(grep -c '^\[ RUN      \]' "$log")
passed=$(grep -c '^\[       OK \]' "$log")
failed=$((ran - passed))
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
	echo "run-tests: $bin exited with status $status after its tests"
	failed=1
fi
echo "$passed passed, $failed failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
