#!/bin/bash
# `make check`: every test layer, in order of cost, each installing what it
# needs. Each suite prints its own results ending in "N passed, N failed";
# this script adds them up and prints the grand total as its last line.
# A suite that fails without printing its summary counts as one failure.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
logdir=$here/build/check
mkdir -p "$logdir"

total_pass=0 total_fail=0 total_skip=0
summary=()

run_suite() {
	local name=$1; shift
	local log=$logdir/$name.log rc line p f s
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		p=0 f=1 s=0
		echo "### $name: no summary line (exit $rc): counted as 1 failure"
	else
		p=$(echo "$line" | sed -E 's/.*\b([0-9]+) passed.*/\1/')
		f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
		s=$(echo "$line" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p')
		s=${s:-0}
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			f=1
			echo "### $name: exit $rc with no failed test: counted as 1 failure"
		fi
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + s))
	summary+=("$(printf '%-14s %4d passed, %d failed, %d skipped' "$name" "$p" "$f" "$s")")
}

"$here/scripts/install-deps.sh" build unit fuzz vm || { echo "installing dependencies failed"; echo "0 passed, 1 failed"; exit 1; }

run_suite unit make -s -C "$here" unit
run_suite fuzz make -s -C "$here" fuzz-check
run_suite module make -s -C "$here" module-check
run_suite guest make -s -C "$here" vm-check
run_suite guest-selftest "$here/tests/vm/selftest.sh"

echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
if [ "$total_skip" -gt 0 ]; then
	echo "$total_pass passed, $total_fail failed, $total_skip skipped"
else
	echo "$total_pass passed, $total_fail failed"
fi
[ "$total_fail" -eq 0 ]
