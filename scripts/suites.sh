# Shared by `make check` (scripts/check.sh) and `make check-debug`
# (scripts/debug-kernel/check.sh); sourced, not run. The caller sets logdir.
#
# run_suite NAME CMD...: runs CMD, its output shown and kept in
# $logdir/NAME.log, and adds the counts of its last "N passed, N failed[, N
# skipped]" line to the totals. A suite that prints no such line counts as
# one failure, and so does one that exits non-zero while claiming none.
# start_suite NAME CMD...: runs CMD in the background, its output only in
# $logdir/NAME.log; finish_suite NAME waits for it, shows that log and counts
# it as run_suite would (its time runs from start_suite). For a suite that
# needs its own guest beside the others, not their CPU time in turn.
# suites_summary: each suite's line, then the grand total as the last line;
# its status is 0 only when nothing failed.

total_pass=0 total_fail=0 total_skip=0
summary=()

run_suite() {
	local name=$1 t rc
	shift
	t=$(date +%s)
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$logdir/$name.log"
	rc=${PIPESTATUS[0]}
	count_suite "$name" "$rc" "$t"
}

declare -A started_pid started_at
start_suite() {
	local name=$1
	shift
	echo "=== $name (in the background, log $logdir/$name.log): $*"
	started_at[$name]=$(date +%s)
	"$@" >"$logdir/$name.log" 2>&1 &
	started_pid[$name]=$!
}

finish_suite() {
	local name=$1 rc
	echo "=== $name: waiting for the suite started in the background"
	wait "${started_pid[$name]}"
	rc=$?
	cat "$logdir/$name.log"
	count_suite "$name" "$rc" "${started_at[$name]}"
}

# count_suite NAME EXIT START: adds the counts of $logdir/NAME.log's last
# summary line to the totals and NAME's line to the summary.
count_suite() {
	local name=$1 rc=$2 t=$3 log=$logdir/$1.log line p f s
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
