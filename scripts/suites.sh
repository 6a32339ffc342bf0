# Shared by `make check` (scripts/check.sh) and `make check-debug`
# (scripts/debug-kernel/check.sh); sourced, not run. The caller sets logdir.
#
# run_suite NAME CMD...: runs CMD, its output shown and kept in
# $logdir/NAME.log, and adds the counts of its last "N passed, N failed[, N
# skipped]" line to the totals. A suite that prints no such line counts as
# one failure, and so does one that exits non-zero while claiming none.
# suites_summary: each suite's line, then the grand total as the last line;
# its status is 0 only when nothing failed.

total_pass=0 total_fail=0 total_skip=0
summary=()

run_suite() {
	local name=$1 log=$logdir/$1.log rc line p f s t
	shift
	t=$(date +%s)
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
	total_pass=$((total_pass + p)) total_fail=$((total_fail + f)) total_skip=$((total_skip + s))
	summary+=("$(printf '%-18s %4d passed, %d failed, %d skipped, %d s' "$name" "$p" "$f" "$s" "$(($(date +%s) - t))")")
}

suites_summary() {
	printf '%s\n' "${summary[@]}"
	if [ "$total_skip" -gt 0 ]; then
		echo "$total_pass passed, $total_fail failed, $total_skip skipped"
	else
		echo "$total_pass passed, $total_fail failed"
	fi
	[ "$total_fail" -eq 0 ]
}

# suites_finish START: the closing block of a check script: the header, the
# time since START (epoch seconds), then suites_summary (its status).
suites_finish() {
	local el=$(($(date +%s) - $1))
	echo
	echo "=== summary"
	printf 'time: %dm%02ds\n' $((el / 60)) $((el % 60))
	suites_summary
}
