# shellcheck shell=bash
# TAP for the repository's check scripts, sourced: result ok|not-ok TEXT
# numbers each check; tap_end prints the plan and the totals, and returns 0
# only when nothing failed.
n=0 passed=0 failed=0
result() {
	n=$((n + 1))
	if [ "$1" = ok ]; then
		passed=$((passed + 1))
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
	fi
}
tap_end() {
	echo "1..$n"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
