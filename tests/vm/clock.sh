# Whether a guest's clock kept the host's pace; sourced by tests/vm/run.sh
# (the host) and tests/vm/lib-checks.sh.
#
# A guest that calibrated its TSC wrongly (scripts/vm/boot.sh: it is given
# the host's frequency now) runs every clock and timer of its kernel at the
# wrong pace: timeouts, the soft-lockup and RCU stall detectors, the cases'
# own waits. Nothing else in a run shows it, so the runner compares the
# guest's uptime when its job ended (init's "srpt-vm-init: job exited with
# status S (Us)" line on the console) with how long QEMU ran (boot.sh's
# OUTDIR/elapsed, host time). The guest cannot have been up longer than
# QEMU ran: more than 5 s over is a fast clock. Less than 90% of QEMU's
# time minus 90 s (firmware and the kernel's unpacking, under TCG on a
# loaded host) is a slow one; not judged when boot.sh booted more than once,
# since its time then counts the boots that did not reach the job.
#
# guest_clock_verdict CONSOLE ELAPSED_FILE BOOTS: prints why the clock was
# wrong and returns 1, or prints how it compared and returns 0; returns 2
# (printing why) when there is nothing to compare.
guest_clock_verdict() {
	local console=$1 elapsed_file=$2 boots=$3 up el
	up=$(grep -a 'srpt-vm-init: job exited with status' "$console" 2>/dev/null | tail -n 1 |
		sed -n 's/.*(\([0-9][0-9]*\(\.[0-9]*\)\{0,1\}\)s), powering off.*/\1/p')
	el=$(cat "$elapsed_file" 2>/dev/null)
	if [ -z "$up" ] || [ -z "$el" ]; then
		echo "no uptime at the job's end or no QEMU time (the guest did not finish its job)"
		return 2
	fi
	awk -v up="$up" -v el="$el" -v boots="$boots" 'BEGIN {
		if (up > el + 5) {
			printf "the guest clock ran fast: uptime %.1f s when its job ended, after %.1f s of QEMU (%.2fx)\n", up, el, up / el
			exit 1
		}
		if (boots == 1 && up < 0.9 * el - 90) {
			printf "the guest clock ran slow: uptime %.1f s when its job ended, after %.1f s of QEMU (%.2fx)\n", up, el, up / el
			exit 1
		}
		printf "uptime %.1f s when its job ended, after %.1f s of QEMU\n", up, el
	}'
}
