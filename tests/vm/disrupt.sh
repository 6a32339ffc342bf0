# Helpers for the cases that disrupt ib_srp's I/O (43, 44): fio running in
# the background while the session or the device goes away, waited for with
# a bound (a hang fails the case), and its outcome classified. Sourced after
# lib.sh, srp.sh, io.sh and fault.sh.
#
# Outcomes (dio_fio_outcome): "ok" (every block written and read back
# verified), "io-error ERRNO" (fio stopped on an I/O error; nothing read back
# differed), "verify-error" (a block read back differs: always a failure).

# A case that ends early (fail) leaves no fio of its own behind.
trap '[ -n "${DIO_PID:-}" ] && kill -9 "$DIO_PID" 2>/dev/null' EXIT

# dio_fio_start NAME FIO-ARGS...: fio with crc32c verification of every block
# it wrote, in the background (DIO_PID); stops at the first error.
dio_fio_start() {
	DIO_NAME=$1
	shift
	DIO_WRITES0=$(awk '{ print $5 }' "/sys/block/$(dio_arg_disk "$@")/stat")
	rm -f "/tmp/fio-$DIO_NAME.json" "/tmp/fio-$DIO_NAME.err"
	fio --name="$DIO_NAME" --ioengine=libaio --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --output-format=json --output="/tmp/fio-$DIO_NAME.json" \
		"$@" 2>"/tmp/fio-$DIO_NAME.err" &
	DIO_PID=$!
	echo "+ fio $DIO_NAME (pid $DIO_PID) $*"
}
dio_arg_disk() {
	local a
	for a in "$@"; do
		case "$a" in --filename=/dev/*) echo "${a#--filename=/dev/}"; return ;; esac
	done
}
dio_running() {
	[ -d "/proc/$DIO_PID" ] && [ "$(cut -d' ' -f3 "/proc/$DIO_PID/stat" 2>/dev/null)" != Z ]
}
# dio_expect_running WHAT: fio must still be running (else the disruption
# would not hit I/O and the case would prove nothing).
dio_expect_running() {
	dio_running || fail "$1: fio ended before the disruption ($(dio_fio_outcome))"
}
# dio_wait_io DEV N: until N more writes completed on DEV since
# dio_fio_start (fio is past its set-up and I/O is flowing; 60 s).
dio_wait_io() {
	local i w
	for i in $(seq 600); do
		w=$(awk '{ print $5 }' "/sys/block/${1#/dev/}/stat" 2>/dev/null)
		[ -n "$w" ] && [ "$w" -ge $((DIO_WRITES0 + $2)) ] && return 0
		dio_running || break
		sleep 0.1
	done
	fail "fio $DIO_NAME: fewer than $2 writes completed on $1 ($(dio_fio_outcome))"
}
# dio_fio_wait SECS: waits for fio; a fio still running after SECS s is a hang
# (its stack is printed, the case fails). Sets DIO_SECS (seconds waited).
dio_fio_wait() {
	local i s=$SECONDS
	for ((i = 0; i < $1 * 10; i++)); do
		dio_running || break
		sleep 0.1
	done
	DIO_SECS=$((SECONDS - s))
	if dio_running; then
		cat "/proc/$DIO_PID/stack" 2>/dev/null
		kill -9 "$DIO_PID"
		fail "fio $DIO_NAME still running $1 s after the disruption: I/O hangs"
	fi
	wait "$DIO_PID"
	DIO_STATUS=$?
}
# dio_fio_outcome: the outcome of the last fio (see the top), and a summary
# line on stderr.
dio_fio_outcome() {
	python3 - "/tmp/fio-$DIO_NAME.json" "/tmp/fio-$DIO_NAME.err" "$DIO_NAME" <<'PY'
import json, re, sys
t = open(sys.argv[1]).read()
err = open(sys.argv[2]).read()
try:
    d = json.loads(t[t.index("{"):])
    jobs = d["jobs"]
except Exception:
    jobs = []
errs = [j.get("error", 0) for j in jobs]
w = sum(j["write"]["io_bytes"] for j in jobs) >> 20
r = sum(j["read"]["io_bytes"] for j in jobs) >> 20
sys.stderr.write("# fio %s: job errors %s, wrote %d MiB, read back %d MiB\n" % (sys.argv[3], errs, w, r))
lines = [l for l in (t + err).splitlines()
         if re.search(r"verify:|bad magic|crc32c:|io_u error|error", l) and '"' not in l]
# Verification complaints first: they decide the outcome.
lines.sort(key=lambda l: 0 if re.search(r"verify|bad magic|crc32c", l) else 1)
for l in lines[:6]:
    sys.stderr.write("#   " + l.strip()[:200] + "\n")
if len(lines) > 6:
    sys.stderr.write("#   (%d more error lines)\n" % (len(lines) - 6))
# 84 = EILSEQ: fio's verification failure; so are its "verify:" complaints.
if 84 in errs or re.search(r"verify: bad|bad magic|crc32c: verify failed", t + err):
    print("verify-error")
elif not jobs:
    print("no-output")
elif any(errs):
    print("io-error %d" % next(e for e in errs if e))
elif w == 0 or r < w:
    print("incomplete")
else:
    print("ok")
PY
}

# dio_rport_tmo RECONNECT_DELAY FAST_IO_FAIL_TMO DEV_LOSS_TMO: ib_srp's
# transport-layer timers of every remote port (seconds).
dio_rport_tmo() {
	local p
	for p in /sys/class/srp_remote_ports/port-*; do
		echo "$1" >"$p/reconnect_delay" || fail "reconnect_delay of $p"
		echo "$2" >"$p/fast_io_fail_tmo" || fail "fast_io_fail_tmo of $p"
		echo "$3" >"$p/dev_loss_tmo" || fail "dev_loss_tmo of $p"
	done
}

# dio_wait_no_rport SECS: until ib_srp has no remote port left (SECS times
# WAIT_SCALE).
dio_wait_no_rport() {
	poll_until "$1" srp_remote_ports_gone ||
		fail "SRP remote ports still present $(($1 * WAIT_SCALE)) s after the removal"
}

# dio_channels_idle N: N channels, each live with no busy slot, nothing
# waiting and every credit back (req_lim = receive depth).
dio_channels_idle() {
	srp_wait_channels "$1"
	srp_channels | tee /tmp/channels
	awk '$4 != "live" || $8 != 0 || $9 != 0 || $10 != $6 { bad = 1 } END { exit bad }' \
		/tmp/channels || fail "channels not idle with every credit back"
}

# The fio job of both cases: random 4 KiB writes, QD 32, two jobs on disjoint
# 8 MiB regions, each block read back and checked (about 10 s under TCG).
DIO_FIO_W=(--direct=1 --rw=randwrite --bs=4k --iodepth=32 --numjobs=2 --size=8M --offset_increment=8M)

# dio_baseline: a warm-up login and verified fio (rxe0's CQ pool gets its
# CQs), logout, then the baselines of objects and memory the case comes
# back to.
dio_baseline() {
	local dev
	dev=$(io_disk ch_count=2) || exit 1
	io_fio warm --filename="$dev" "${DIO_FIO_W[@]}"
	dio_channels_idle 2
	srp_logout
	fault_settle
	fault_baseline
	mem_baseline
}
