# Shared by tests/install/*.sh (sourced): TAP-style results and the summary
# line scripts/suites.sh counts.
pass=0 fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
nok() { echo "not ok - $1"; fail=$((fail + 1)); }
# check NAME WANT GOT
check() { if [ "$2" = "$3" ]; then ok "$1"; else nok "$1: want '$2', got '$3'"; fi; }
# summary: the "N passed, N failed" line; its status is 0 only with no failure.
summary() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; }
