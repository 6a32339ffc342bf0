#!/bin/bash
# Guest side of the VM test runner: runs inside the guest (as the job of
# scripts/vm/boot.sh, started by tests/vm/run.sh), one case after the other.
#
# Per case:
#   1. restore the clean state: module under test unloaded (configfs tree
#      removed first), veth pair and rxe0 present;
#   2. write a marker into the kernel log, run the case with a timeout, its
#      output going to $SRPT_VM_OUT/cases/<name>.log;
#   3. clean up after it (a case that leaves a state that cannot be cleaned,
#      e.g. a module that no longer unloads, fails);
#   4. where the kernel has kmemleak, scan and fail the case on any
#      unreferenced object allocated through one of our modules (lib.sh:
#      kmemleak_ours; the report goes to cases/<name>.kmemleak);
#   5. write an end marker and scan the kernel log between the previous
#      marker and this one for kernel bug reports (kernel-reports.txt): a
#      report fails the case even if its script passed.  The slice is kept
#      as cases/<name>.dmesg.
#   6. append "<index> <status> <name> <reason>" (tab separated; status ok,
#      fail or skip) to $SRPT_VM_OUT/results.tsv, which the host streams.
# Finally writes $SRPT_VM_OUT/results.done.  A case stuck in the kernel past
# its timeout (unkillable) aborts the run: results.aborted says why.
#
# Environment: SRPT_ROOT, SRPT_MODULE, SRPT_VM_OUT, SRPT_VM_CASES (case script
# paths, space separated), SRPT_VM_CASE_BASE (index of the case before the
# first, default 0), SRPT_VM_CASE_TIMEOUT (seconds, default 240).
set -u
. "$SRPT_ROOT/tests/vm/lib.sh"

OUT=${SRPT_VM_OUT:?}
case_timeout=${SRPT_VM_CASE_TIMEOUT:-240}
RES=$OUT/results.tsv
mkdir -p "$OUT/cases"
: >"$RES"
echo "guest runner: kernel $(uname -r), module $SRPT_MODULE"

# Environment every case expects.  Failing here fails every case, reported
# per case by the setup check below.
setup_err=
rxe_modules || setup_err="modprobe of rxe modules failed"
[ -n "$setup_err" ] || veth_setup || setup_err="veth setup failed"
[ -n "$setup_err" ] || configfs_mount || setup_err="configfs mount failed"

# fail_snapshot: the RDMA state a failed case leaves, before the cleanup
# changes it: rxe's counters (retries, sequence and RNR errors say which
# side of a queue pair gave up), every QP's state, the module's channels.
fail_snapshot() {
	echo "### state after the failure"
	rdma statistic show
	rdma resource show qp
	cat /sys/kernel/debug/ib_srpt/channels
	true
}

# Restore the state every case starts from; prints what it had to do.
# `clean_state fresh` (after a failed case) also makes rxe0 anew: a failure
# can leave it unusable for every later case (a MAD rxe cannot route puts
# its GSI QP in the error state for good; case 51 failing on the debug
# kernel took 53 and 54 down with it).
clean_state() {
	srpt_unload || return 1
	if [ "${1:-}" = fresh ] && rxe_present; then
		echo "re-creating $RXE after the failed case"
		rxe_del || return 1
	fi
	if ! rxe_present; then
		echo "restoring $RXE"
		rxe_add || return 1
	fi
}

# PIDs of the live (not zombie) processes of process group $1.
# (ps -g selects sessions, not process groups: filter on the pgid column.)
group_alive() { ps -e -o pid=,pgid=,stat= | awk -v g="$1" '$2 == g && $3 !~ /^Z/ { print $1 }'; }

# A case left a process stuck in the kernel (D state, immune to SIGKILL):
# the guest can no longer be trusted to run more cases.  Record the failure
# with the blocked tasks' stacks (sysrq-w, also on the console) and stop.
abort_hung() {
	{
		echo "### processes in D state (uninterruptible):"
		ps -e -o pid,stat,wchan:32,args | awk 'NR == 1 || $2 ~ /^D/'
		echo "### $1"
	} >>"$log" 2>&1
	echo w >/proc/sysrq-trigger
	sleep 1
	kmsg_mark "end $i $name"
	dmesg | awk -v a="srpt-vm-mark: $prev_mark" 'on { print } index($0, a) { on = 1 }' \
		>"$OUT/cases/$name.dmesg"
	reason="$1; remaining cases not run"
	echo "=== [$i] $name: fail - $reason"
	printf '%s\t%s\t%s\t%s\n' "$i" fail "$name" "$reason" >>"$RES"
	echo "runner aborted: case $name hung in the kernel" >"$OUT/results.aborted"
	exit 3
}

# kmemleak (the debug kernel): what boot leaked is no case's doing. Its own
# scan thread (every 10 minutes) is switched off: each case ends in a scan
# of its own, and a scan of the whole memory under KASAN and TCG takes the
# CPU a case's I/O needs for minutes at a random point.
if [ -e "$KMEMLEAK" ]; then
	echo scan=off >"$KMEMLEAK" || setup_err="kmemleak: cannot switch off its scan thread"
	kmemleak_scan "$OUT/kmemleak-boot.txt" ||
		setup_err="kmemleak exists but cannot scan (disabled?)"
fi
rm -f "$MODRANGES"

prev_mark="runner start"
kmsg_mark "$prev_mark"
# (After a boot that died of a foreign report, tests/vm/run.sh lists the
# cases left and the number of those reported before.)
i=${SRPT_VM_CASE_BASE:-0}
for c in $SRPT_VM_CASES; do
	i=$((i + 1))
	name=$(basename "$c" .sh)
	log=$OUT/cases/$name.log
	echo "=== [$i] $name"
	reason=
	{
		echo "### pre-case cleanup"
		clean_state
	} >"$log" 2>&1 || reason="could not restore the clean state before the case (see log)"
	[ -z "$setup_err" ] || reason="guest setup: $setup_err"

	kmsg_mark "begin $i $name"
	if [ -z "$reason" ]; then
		echo "### case $name" >>"$log"
		start=$(date +%s.%N)
		# `timeout` ends a slow case (it signals the case's whole process
		# group); the runner keeps its own deadline in case timeout itself
		# cannot return.
		# A case may ask for more time with a line "# case-timeout: SEC",
		# a bound for a hang on a production kernel: WAIT_SCALE times that
		# on the debug kernel, like every wait (a case there takes several
		# times as long as on a production kernel, some far more than
		# others, so no one flat limit both fits them and bounds a hang).
		ct=$(sed -n 's/^# case-timeout: \([0-9][0-9]*\)$/\1/p' "$c" | head -n 1)
		[ -z "$ct" ] || ct=$((ct * WAIT_SCALE))
		[ -n "$ct" ] && [ "$ct" -gt "$case_timeout" ] || ct=$case_timeout
		echo "### time limit ${ct}s" >>"$log"
		(cd /tmp && SRPT_CASE=$name exec timeout -k 10 "$ct" \
			bash "$c") >>"$log" 2>&1 </dev/null &
		cpid=$!
		deadline=$((SECONDS + ct + 30))
		while kill -0 "$cpid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do
			sleep 0.2
		done
		if kill -0 "$cpid" 2>/dev/null; then
			abort_hung "case still running $((ct + 30))s after its start (timeout could not end it)"
		fi
		wait "$cpid"
		rc=$?
		# timeout(1) runs the case in its own process group (pgid = its pid)
		# and signals the whole group.  A process left there is killed; one
		# that survives SIGKILL is stuck in the kernel.
		if [ -n "$(group_alive "$cpid")" ]; then
			{
				echo "### processes left behind by the case (killing them):"
				ps -e -o pid,pgid,stat,wchan:32,args | awk -v g="$cpid" 'NR == 1 || $2 == g'
			} >>"$log" 2>&1
			kill -9 -- -"$cpid" 2>/dev/null
			for _ in $(seq 50); do
				[ -n "$(group_alive "$cpid")" ] || break
				sleep 0.2
			done
			if [ -n "$(group_alive "$cpid")" ]; then
				abort_hung "a process of the case survives SIGKILL (stuck in the kernel)"
			fi
		fi
		secs=$(echo "$start $(date +%s.%N)" | awk '{printf "%.1f", $2 - $1}')
		echo "### case exit status $rc after ${secs}s" >>"$log"
		case $rc in
		0) status=ok ;;
		77) status=skip
		    reason=$(grep -m 1 '^SKIP: ' "$log" | sed 's/^SKIP: //')
		    [ -n "$reason" ] || reason="case skipped" ;;
		124 | 137) status=fail reason="case timed out after ${ct}s" ;;
		*) status=fail
		   reason=$(grep -m 1 '^FAIL: ' "$log" | sed 's/^FAIL: //')
		   [ -n "$reason" ] || reason="case exited with status $rc" ;;
		esac
		[ "$status" != fail ] || fail_snapshot >>"$log" 2>&1
		# Post-case cleanup is part of the case: what the module leaves behind
		# must be removable.
		echo "### post-case cleanup" >>"$log"
		# Bounded too: after an Oops, rmmod or a configfs rmdir can block
		# for ever, and the run must say so now, not at the guest timeout.
		fresh=
		[ "$status" != fail ] || fresh=fresh
		clean_state $fresh >>"$log" 2>&1 &
		cpid=$!
		deadline=$((SECONDS + 120))
		while kill -0 "$cpid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do
			sleep 0.2
		done
		if kill -0 "$cpid" 2>/dev/null; then
			abort_hung "post-case cleanup still running after 120s (stuck in the kernel?)"
		fi
		if ! wait "$cpid"; then
			[ "$status" = fail ] || reason="cleanup after the case failed (see log)"
			status=fail
		fi
	else
		status=fail
	fi

	# Leaks through our modules in this case (kmemleak, where the kernel has
	# it): objects allocated up to the end of the cleanup, once 5 s old.
	if [ -e "$KMEMLEAK" ]; then
		sleep 5
		lreason=
		if ! kmemleak_scan "$OUT/cases/$name.kmemleak"; then
			lreason="kmemleak: scan failed (kmemleak disabled?)"
		else
			ours=$(kmemleak_ours "$OUT/cases/$name.kmemleak")
			if [ -n "$ours" ]; then
				nl=$(grep -c '^unreferenced object ' <<<"$ours")
				mods=$(grep -oE "\[($KMEMLEAK_OURS)(, unloaded)?\]" <<<"$ours" | sort -u | paste -sd' ')
				{
					echo "### kmemleak: $nl unreferenced objects allocated through our modules:"
					echo "$ours"
				} >>"$log"
				lreason="kmemleak: $nl unreferenced objects, backtrace in $mods (first: $(head -n 1 <<<"$ours"))"
			fi
		fi
		if [ -n "$lreason" ]; then
			[ "$status" != fail ] || reason="$reason; "
			[ "$status" = fail ] || reason=
			reason="$reason$lreason"
			status=fail
		fi
	fi

	# Give deferred work (e.g. release of sessions from a work item) a moment
	# to log before the slice is cut.
	sleep 0.5
	kmsg_mark "end $i $name"
	dmesg | awk -v a="srpt-vm-mark: $prev_mark" -v b="srpt-vm-mark: end $i $name" '
		function is(m) { return index($0, m) && substr($0, index($0, m)) == m }
		is(b) { exit }
		on { print }
		is(a) { on = 1 }' >"$OUT/cases/$name.dmesg"
	prev_mark="end $i $name"
	reports=$(kernel_reports <"$OUT/cases/$name.dmesg")
	if [ -n "$reports" ]; then
		kinds=$(echo "$reports" | cut -f1 | paste -sd, | sed 's/,/, /g')
		# The earliest report line in the log, without its timestamp.
		first=$(grep -v 'srpt-vm-mark: ' "$OUT/cases/$name.dmesg" |
			grep -E -m 1 -- "$(kernel_report_patterns)" | sed 's/^\[[ 0-9.]*\] //')
		{
			echo "### kernel log reports in this case's slice:"
			echo "$reports" | cut -f2
		} >>"$log"
		[ "$status" != fail ] || reason="$reason; "
		[ "$status" = fail ] || reason=
		reason="${reason}kernel log reports: $kinds (first: $first)"
		status=fail
	fi
	echo "=== [$i] $name: $status${reason:+ - $reason}"
	printf '%s\t%s\t%s\t%s\n' "$i" "$status" "$name" "$reason" >>"$RES"
done
touch "$OUT/results.done"
echo "guest runner: done"
