#!/bin/bash
# Host test of the guest runner's leak checks (tests/vm/lib.sh), on made-up
# input: kmemleak_ours must pick exactly the kmemleak records whose backtrace
# runs through our modules (by name, or by a raw address inside a recorded
# load range), and srpt_objects_check must refuse counts that break a rule.
# Runs in a second, no guest needed.  Output: TAP, "N passed, N failed".
set -u
SRPT_ROOT=$(cd "$(dirname "$0")/../.." && pwd -P)
export SRPT_ROOT
. "$SRPT_ROOT/tests/vm/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
check() { # check WHAT COND...
	local what=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $what"; else echo "not ok $n - $what"; failed=$((failed + 1)); fi
}

MODRANGES=$tmp/ranges
printf 'ib_srpt %016x %016x\n' $((0xffffffffc0a00000)) $((0xffffffffc0a00000 + 0x20000)) >"$MODRANGES"
cat >"$tmp/report" <<'R'
unreferenced object 0xffff888012345600 (size 256):
  comm "sh", pid 123, jiffies 4294937296
  hex dump (first 32 bytes):
    5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a  ZZZZZZZZZZZZZZZZ
  backtrace (crc 1234abcd):
    __kmalloc_noprof+0x2f1/0x3b0
    0xffffffffc0a01234
    full_proxy_write+0x110/0x180
unreferenced object 0xffff888012349900 (size 64):
  comm "swapper/0", pid 1, jiffies 4294937296
  backtrace (crc 1234abce):
    __kmalloc_noprof+0x2f1/0x3b0
    0xffffffffc0a20000
    do_one_initcall+0x10/0x300
unreferenced object 0xffff888012340000 (size 128):
  comm "insmod", pid 77, jiffies 4294937296
  backtrace (crc 1234abcf):
    __kmalloc_noprof+0x2f1/0x3b0
    srpt_vm_selftest_leak+0x10/0x40 [srpt_vm_selftest]
unreferenced object 0xffff888012347700 (size 32):
  comm "kworker/0:1", pid 9, jiffies 4294937296
  backtrace (crc 1234abd0):
    __kmalloc_noprof+0x2f1/0x3b0
    rxe_alloc+0x10/0x40 [rdma_rxe]
R
ours=$(kmemleak_ours "$tmp/report")
check "kmemleak_ours keeps the record with a raw address inside ib_srpt's range" \
	grep -q '^unreferenced object 0xffff888012345600 ' <<<"$ours"
check "... and marks that address [ib_srpt, unloaded]" \
	grep -qx '    0xffffffffc0a01234 \[ib_srpt, unloaded\]' <<<"$ours"
check "... keeps the record naming [srpt_vm_selftest]" \
	grep -q '^unreferenced object 0xffff888012340000 ' <<<"$ours"
check "... drops the record whose raw address is just past the range" \
	bash -c '! grep -q "^unreferenced object 0xffff888012349900 " <<<"$1"' _ "$ours"
check "... drops another module's record" \
	bash -c '! grep -q "rdma_rxe" <<<"$1"' _ "$ours"
check "... keeps whole records (2 objects, 13 lines)" \
	test "$(grep -c '^unreferenced object ' <<<"$ours"):$(wc -l <<<"$ours")" = 2:13
: >"$tmp/empty"
check "kmemleak_ours prints nothing for an empty report" test -z "$(kmemleak_ours "$tmp/empty")"

good='allocs 5
alloc_bytes 640
cqs 0
qps 0
sessions 0
login_ret_zero 3
login_ret_nonzero 1
cm_destroyed_by_channel 3
ownership_broken 0
srqs 0
channels 0
cm_adopted 3
cm_destroyed 3'
echo "$good" >"$tmp/good"
check "srpt_objects_check accepts settled counts that obey the cm_id rule" \
	env SRPT_OBJECTS="$tmp/good" bash -c '. "$SRPT_ROOT/tests/vm/lib.sh"; srpt_objects_check'
for bad in 'cm_destroyed 2' 'ownership_broken 1' 'cm_destroyed_by_channel 2' 'login_ret_zero 4'; do
	sed "s/^${bad% *} .*/$bad/" "$tmp/good" >"$tmp/bad"
	check "srpt_objects_check refuses $bad" \
		bash -c '! SRPT_OBJECTS=$1 bash -c ". \"\$SRPT_ROOT/tests/vm/lib.sh\"; srpt_objects_check" 2>/dev/null' _ "$tmp/bad"
done

# poll_until: success as soon as the command succeeds; the command's failure
# once the time is up (here 1 s: ten tries and a last one). wait_for: the
# case fails, naming what did not happen (WAIT_SCALE 0: no wait).
tries=$tmp/tries
third_try() { echo x >>"$tries"; [ "$(wc -l <"$tries")" -ge 3 ]; }
never() { echo x >>"$tries"; return 3; }
poll_third() { : >"$tries"; poll_until 1 third_try && [ "$(wc -l <"$tries")" = 3 ]; }
poll_never() { : >"$tries"; poll_until 1 never; [ $? = 3 ] && [ "$(wc -l <"$tries")" = 11 ]; }
wait_for_fails() {
	local out
	out=$(WAIT_SCALE=0 wait_for "the thing" false) && return 1
	[ "$out" = "FAIL: not the thing after 0 s" ]
}
check "poll_until returns once the command succeeds (third try)" poll_third
check "poll_until fails with the command's status when it never succeeds, after 11 tries" poll_never
check "wait_for fails the case with what did not happen" wait_for_fails

echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
