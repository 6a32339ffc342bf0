#!/bin/bash
# 32 16 IB/CM logins at once (distinct I_T nexuses, one thread each): all
# established, 16 live ib_cm channels while held, none after the DREQs; the
# per-login latency summary is logged.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/ibcm.sh"
trap ibcm_cleanup EXIT

N=16
srpt_load
ibcm_load
g=$(port_guid_name | tr -d :)
hi=0000000000000032
srp_target "$(port_gid_name)" "0x$hi$g"
t=$SRPT_CFS/$(port_gid_name)/tpgt_1
for i in $(seq 1 $((N - 1))); do
	run mkdir "$t/acls/0x$hi$(printf %016x $((0x$g + i)))"
done

# The target handles the REQs one at a time. On the debug kernel (three
# debug guests on two cores) the last of the 16 can be answered past the
# tool's 5 s limit, or a REQ's three CM retries (about 7 s) can run out
# first. There the tool waits WAIT_SCALE times as long and ib_cm resends a
# REQ up to 15 times, as ib_srp does.
# Every login must still be established.
retries=()
[ "$WAIT_SCALE" -gt 1 ] && retries=(--cm-retries 15)
IBCM_EXEC=1 ibcm_login "$hi$g" --concurrent $N --hold-ms 30000 \
	--timeout-ms $((5000 * WAIT_SCALE)) "${retries[@]}" >"$SRPT_VM_OUT/32.out" &
pid=$!
for i in $(seq 300); do
	[ "$(srp_channels | grep -c ' ib_cm live ')" -eq $N ] && break
	sleep 0.1
done
srp_channels
assert_eq "$(srp_channels | grep -c ' ib_cm live ')" $N "live IB/CM channels"
wait $pid || fail "concurrent logins: status $?: $(cat "$SRPT_VM_OUT/32.out")"
cat "$SRPT_VM_OUT/32.out"
sum=$(grep '^summary' "$SRPT_VM_OUT/32.out")
assert_eq "$(ti_field "$sum" established)" $N "established"
wait_channels_max 0 30
srp_cleanup
srpt_unload || fail "unload failed"
run rmmod srpt_test_ibcm
exit 0
