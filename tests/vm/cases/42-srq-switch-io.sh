#!/bin/bash
# 42 use_srq flipped 1 -> 0 -> 1 while ib_srp is logged in and fio writes
# and verifies: each write logs the initiator out (its channels close with
# "use_srq changed"), ib_srp reconnects after its reconnect_delay (1 s) on
# the new receive queue, the SCSI commands it held are retried, and fio ends
# with zero verification or I/O errors. Then the srq_create fault: use_srq=1
# fails with ENOMEM and a log line, nothing changes (use_srq stays 0, no
# channel closes, no SRQ), I/O still works, and a later use_srq=1 works.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/io.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"
. "$SRPT_ROOT/tests/vm/srq.sh"

srpt_load
fault_debugfs
io_nullb
srp_target "$(port_guid_name)" "$VETH0_IP"
srq_set 1
dev=$(io_disk "ch_count=1") || exit 1
srq_fast_reconnect
srq_expect_rq srq 1

# fio in the background, time-based so that it spans both switches.
kmsg_mark "42 flip"
fio --name=flip --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite \
	--bs=4k-64k --iodepth=16 --numjobs=2 --size=16M --offset_increment=16M \
	--time_based --runtime=40 --verify=crc32c --do_verify=1 --verify_fatal=1 \
	--output-format=json --output=/tmp/fio-flip.json &
fio_pid=$!
sleep 8
srq_set 0
srq_expect_rq own 1
log "logged in again on own rings"
sleep 6
srq_set 1
srq_expect_rq srq 1
log "logged in again on the SRQ"
wait $fio_pid
fio_st=$?
python3 - /tmp/fio-flip.json <<'PY' || fio_st=1
import json, sys
t = open(sys.argv[1]).read()
d = json.loads(t[t.index("{"):])
err = sum(j.get("error", 0) for j in d["jobs"])
w = sum(j["write"]["io_bytes"] for j in d["jobs"])
r = sum(j["read"]["io_bytes"] for j in d["jobs"])
print("# flip: wrote %d MiB, verified %d MiB, errors %d" % (w >> 20, r >> 20, err))
sys.exit(1 if err or w == 0 else 0)
PY
closed=$(dmesg_since "42 flip" | grep -c "closing: use_srq changed")
log "channels closed by the switches: $closed"
[ "$closed" -ge 2 ] || fail "expected a logout per switch, saw $closed"
# ib_srp's side: its connection was lost and re-established per switch.
log "initiator: $(dmesg_since "42 flip" | grep -c "ib_srp: reconnect succeeded") reconnects"
dmesg_since "42 flip" | grep -E "I/O error|rejecting I/O" && log "(ib_srp failed some I/O during a gap)"
[ $fio_st -eq 0 ] || { head -c 3000 /tmp/fio-flip.json; fail "fio across the switches failed"; }

# srq_create fails: the write fails with ENOMEM, nothing else changes.
srq_set 0
srq_expect_rq own 1
before=$(srp_channels)
kmsg_mark "42 fault"
fault_arm srq_create 1
expect_errno "Cannot allocate memory" bash -c "echo 1 > $(srq_attr)"
expect_dmesg_since "42 fault" "creating the shared receive queue of $RXE failed .-12.; the port goes on without SRQ" "log line"
assert_eq "$(fault_injected srq_create)" 1 "srq_create failures injected"
assert_eq "$(cat "$(srq_attr)")" 0 "use_srq after the failed switch"
assert_eq "$(srq_count)" 0 "SRQs after the failed switch"
dmesg_since "42 fault" | grep -q "closing" && fail "the failed switch closed channels"
assert_eq "$(srp_channels | cut -d" " -f1-13,15)" "$(echo "$before" | cut -d" " -f1-13,15)" "channels after the failed switch"
io_fio after-fault --filename="$dev" --direct=1 --rw=randwrite --bs=4k --iodepth=16 --size=4M
srq_set 1
srq_expect_rq srq 1
io_fio after-on --filename="$dev" --direct=1 --rw=randwrite --bs=4k --iodepth=16 --size=4M

srp_cleanup
fault_settle
srpt_unload || fail "unload failed"
exit 0
