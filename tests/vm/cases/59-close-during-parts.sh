#!/bin/bash
# case-timeout: 900
# 59 Channels that close while RDMA goes in parts. ib_srp with
# never_register=1 cmd_sg_entries=255 (as case 58) sends 1 MiB commands of
# up to 255 segments; each needs more work requests than the send queue
# holds with srp_sq_size 192 (as case 58), so the target posts it in parts
# and the other commands wait for room. Under verified fio (1 MiB, random
# reads and writes, QD 32, two channels) the channels are closed, in
# rounds, each way a channel closes while transfers are in parts. fio's
# buffers are shared memory taken from free pages no two of which are
# adjacent (io_scatter_free_pages), so that every 1 MiB command has the
# most descriptors ib_srp sends and goes in parts, whatever the guest's
# memory looked like:
#   rport  ib_srp deletes its remote port (DREQ from the initiator): fio
#          ends on an I/O error; the next round logs in again;
#   tpg    the TPG is disabled for 1 s: ib_srp reconnects, fio completes;
#   acl    the ACL is removed (the target core closes the session) and
#          re-added 2 s later: writes that meet the session before it
#          closes are refused (write protected, case 43), so fio completes
#          or ends on that I/O error; ib_srp reconnects once the ACL is back;
#   break  the module's fault point chain_break: the next RDMA chain of
#          more than one request is posted in part (its head only), the
#          channel closes and the chain completes flushed; ib_srp
#          reconnects, fio completes;
#   link   veth0 goes down for 2 s (responses fail, the channels close
#          while the port is down): ib_srp reconnects after 15 s, fio
#          completes.
# Between the close and the release work's move of the QP to the error
# state the QP is live, and room coming back must go to the waiters only
# as far as it goes: an overfilled queue, a chain freed while the send
# queue still holds its head, or a command ended twice shows as a kernel
# report (KASAN on the debug kernel, SLUB checks elsewhere), a verification
# error, a hang, or objects left at the end. No round may see a block read
# back wrong; each trigger's outcome is checked, and each trigger's closes
# must have met channels that had gone in parts.
# SRPT_CASE_PARTS_ROUNDS: rounds per trigger (default 1; make check-long 20);
# SRPT_CASE_PARTS_TRIGGERS: which triggers, in order (default all five).
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/io.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"
. "$SRPT_ROOT/tests/vm/disrupt.sh"

rounds=${SRPT_CASE_PARTS_ROUNDS:-1}
srpt_load recv_ring_cache=0  # fault.sh counts allocations exactly
io_nullb 16384
name=$(port_guid_name)
t=$SRPT_CFS/$name/tpgt_1
acl=$t/acls/$VETH0_IP
srp_target "$name" "$VETH0_IP"
run sh -c "echo 192 > $SRPT_CFS/$name/tpgt_1/attrib/srp_sq_size"
fault_debugfs
io_initiator never_register=1 cmd_sg_entries=255
dio_baseline
io_scatter_free_pages 64

PARTS_FIO=(--direct=1 --iomem=shm --rw=randrw --bs=1M --iodepth=32 --numjobs=1 --size=64M)

# The disk, logged in if the last round logged out; its remote port
# reconnects every second (15 s for the link rounds, so that no CM message
# goes out while the link is down: case 44), fails I/O after 60 s.
parts_disk() {
	local delay=$1 dev
	if srp_remote_ports_gone; then
		dev=$(io_disk ch_count=2,max_sect=16384) || exit 1
	else
		dev=$(srp_disk) || fail "no LIO disk"
	fi
	dio_rport_tmo "$delay" 60 $((300 * WAIT_SCALE))
	echo "$dev"
}

# parts_round TRIGGER N
parts_round() {
	local trig=$1 n=$2 dev out delay=1 injected
	[ "$trig" = link ] && delay=15
	dev=$(parts_disk $delay)
	dio_fio_start "$trig-$n" --filename="$dev" "${PARTS_FIO[@]}"
	dio_wait_io "$dev" 4
	dio_expect_running "$trig $n"
	kmsg_mark "59 $trig $n"
	case $trig in
	rport)
		for p in /sys/class/srp_remote_ports/port-*; do echo 1 >"$p/delete"; done
		;;
	tpg)
		run sh -c "echo 0 > $t/enable"
		sleep 1
		run sh -c "echo 1 > $t/enable"
		;;
	acl)
		run rm "$acl/lun_0/lun_0"
		run rmdir "$acl/lun_0"
		run rmdir "$acl"
		sleep 2
		# Back, with the listener off meanwhile (case 43 (c)).
		run sh -c "echo 0 > $SRPT_CFS/discovery_auth/rdma_cm_port"
		run mkdir "$acl"
		run mkdir "$acl/lun_0"
		run ln -s "$t/lun/lun_0" "$acl/lun_0/lun_0"
		run sh -c "echo $SRP_PORT > $SRPT_CFS/discovery_auth/rdma_cm_port"
		;;
	break)
		injected=$(fault_injected chain_break)
		fault_arm chain_break 1
		;;
	link)
		run ip link set "$VETH0" down
		sleep 2
		run ip link set "$VETH0" up
		;;
	esac
	dio_fio_wait $((240 * WAIT_SCALE))
	out=$(dio_fio_outcome)
	log "$trig $n: fio status $DIO_STATUS after $DIO_SECS s: $out"
	case "$trig:$out" in
	*:verify-error) fail "$trig $n: a block read back differs" ;;
	rport:"io-error "* | acl:"io-error 121" | acl:ok) ;;
	tpg:ok | break:ok | link:ok) ;;
	*) fail "$trig $n: fio ended '$out'" ;;
	esac
	case $trig in
	rport)
		dio_wait_no_rport 60
		srp_wait_channels 0
		;;
	break)
		[ "$(fault_injected chain_break)" -gt "$injected" ] ||
			fail "break $n: no chain was posted in part"
		expect_dmesg_since "59 $trig $n" "ib_srpt: channel .* closing: " "the broken chain closed its channel"
		;;
	esac
	# Every channel closed in this round, released.
	poll_until 60 parts_released "59 $trig $n" ||
		fail "$trig $n: a channel that closed was not released"
	if [ "$trig" != rport ]; then
		poll_until 60 srp_channel_count_is 2 || fail "$trig $n: ib_srp did not log in again"
	fi
}
# parts_released MARK: as many channels released since MARK as closed.
parts_released() {
	local closing released
	closing=$(dmesg_since "$1" | grep -c "ib_srpt: channel .* closing: ")
	released=$(grep -c . <(srp_channels | awk '$4 != "live"'))
	[ "$closing" -gt 0 ] && [ "$released" = 0 ]
}

kmsg_mark "59 start"
for trig in ${SRPT_CASE_PARTS_TRIGGERS:-rport tpg acl break link}; do
	for n in $(seq "$rounds"); do
		parts_round "$trig" "$n"
	done
	parts=$(dmesg_since "59 start" | sed -n "/srpt-vm-mark: 59 $trig 1\$/,\$p" |
		grep -c "ib_srpt: channel .*: [0-9]* transfers posted in parts")
	log "$trig: $rounds rounds, $parts closed channels had gone in parts"
	[ "$parts" -gt 0 ] ||
		fail "$trig: in $rounds rounds no channel that closed had posted a transfer in parts"
done
dmesg_since "59 start" | grep -E "for one segment|SRP_CMD refused" && fail "commands refused"
io_scatter_end

srp_logout
srp_wait_channels 0
fault_check_clean "end"
log "end: objects back: $OBJLINE"
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
