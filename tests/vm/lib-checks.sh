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
	out=$(WAIT_SCALE=0 wait_for "the thing" false 2>&1) && return 1
	[ "$out" = "FAIL: not the thing after 0 s" ]
}
check "poll_until returns once the command succeeds (third try)" poll_third
check "poll_until fails with the command's status when it never succeeds, after 11 tries" poll_never
check "wait_for fails the case with what did not happen" wait_for_fails

# console_report_foreign (tests/vm/foreign.sh): a report is the kernel's
# or the emulator's only while no flags line shows O (an out-of-tree module
# loaded in that boot); consoles trimmed from real ones.
. "$SRPT_ROOT/tests/vm/foreign.sh"
not() { ! "$@"; }
cat >"$tmp/c-int3" <<'C'
[    3.912001] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
[    3.912102] CPU: 0 UID: 0 PID: 1 Comm: swapper/0 Not tainted 6.12.117+deb12-amd64 #1  Debian 6.12.117-1~bpo12+1
[    3.912200] RIP: 0010:sched_clock_cpu+0x9/0x1b0
[    3.912300] Modules linked in:
[    3.913000] Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b
C
cat >"$tmp/c-dfault" <<'C'
[  112.000000] srpt-vm-mark: begin 1 60-package
[  116.027666] traps: PANIC: double fault, error_code: 0x0
[  116.029522] Oops: double fault: 0000 [#1] PREEMPT SMP NOPTI
[  116.029600] CPU: 1 UID: 0 PID: 4242 Comm: cc1plus Not tainted 6.12.117+deb12-amd64 #1  Debian 6.12.117-1~bpo12+1
[  116.038336] Modules linked in: configfs veth rdma_rxe ib_uverbs ib_core
[  116.038982] Kernel panic - not syncing: Fatal exception in interrupt
C
cat >"$tmp/c-ours" <<'C'
[   40.100000] ib_srpt: loading out-of-tree module taints kernel.
[   52.000000] BUG: kernel NULL pointer dereference, address: 0000000000000008
[   52.000100] Oops: 0000 [#1] PREEMPT SMP NOPTI
[   52.000200] CPU: 0 PID: 880 Comm: kworker/0:2 Tainted: G           O       6.1.0-28-amd64 #1  Debian 6.1.119-1
[   52.000300] Modules linked in: ib_srpt(O) target_core_mod rdma_rxe ib_core
[   52.100000] Kernel panic - not syncing: Fatal exception
C
# A warning before our module loaded, then a crash with it loaded: the
# crash is ours, whatever the first report was.
cat >"$tmp/c-later" <<'C'
[   10.000000] WARNING: CPU: 1 PID: 33 at drivers/infiniband/sw/rxe/rxe.c:1 rxe_x+0x1/0x2 [rdma_rxe]
[   10.000100] CPU: 1 PID: 33 Comm: kworker/1:1 Not tainted 6.1.0-28-amd64 #1  Debian 6.1.119-1
[   60.000000] BUG kmalloc-64 (Tainted: G        W  O      ): Object already free
C
cat >"$tmp/c-noflags" <<'C'
[    1.000000] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)
C
cat >"$tmp/c-clean" <<'C'
[    1.000000] CPU: 0 UID: 0 PID: 1 Comm: swapper/0 Not tainted 6.12.117+deb12-amd64 #1
[    2.000000] srpt-vm-mark: begin 1 04-crash-Oops
C
check "console_taints reads 'Not tainted' and the flags letters" \
	test "$(console_taints "$tmp/c-ours" | paste -sd,):$(console_taints "$tmp/c-later" | paste -sd,)" = "GO:Not tainted,GWO"
check "a boot-time int3 Oops with no module loaded is foreign" console_report_foreign "$tmp/c-int3"
check "a double fault while nothing out-of-tree was loaded is foreign" console_report_foreign "$tmp/c-dfault"
check "an Oops with flag O (ib_srpt loaded) is not foreign" not console_report_foreign "$tmp/c-ours"
check "a report after O was set is not foreign, even after an earlier untainted one" \
	not console_report_foreign "$tmp/c-later"
check "a report without any flags line is not foreign" not console_report_foreign "$tmp/c-noflags"
check "a console without a report is not foreign (a marker line is no report)" \
	not console_report_foreign "$tmp/c-clean"

# case_first_report (foreign.sh): a failed case's report is printed whole,
# from the lines before it, so that a truncated CI log still says what was
# overwritten and who allocated and freed it.
cat >"$tmp/d-slub" <<'C'
[  200.000000] srpt-vm-mark: begin 2 41-srq
[  201.000000] ib_srpt: rxe0: shared receive queue released
[  201.500000] =============================================================================
[  201.500001] [Poison overwritten] 0xffff888004c1e2a0-0xffff888004c1e2a0 @offset=672. First byte 0x6a instead of 0x6b
[  201.500002] BUG kmalloc-96 (Tainted: G           OE      ): Object corrupt
[  201.500003] -----------------------------------------------------------------------------
[  201.500004] Allocated in srpt_shim_kmalloc+0x1a/0x40 [ib_srpt] age=1234 cpu=1 pid=880
[  201.500005] Freed in srpt_shim_kfree+0x11/0x20 [ib_srpt] age=12 cpu=0 pid=77
C
first_report_slub() {
	local o
	o=$(case_first_report "$tmp/d-slub")
	grep -q '^# --- the first kernel report of the case' <<<"$o" &&
		grep -q '^#   .*\[Poison overwritten\] .*First byte 0x6a' <<<"$o" &&
		grep -q '^#   .*BUG kmalloc-96' <<<"$o" &&
		grep -q '^#   .*Freed in srpt_shim_kfree' <<<"$o" &&
		! grep -q 'srpt-vm-mark' <<<"$o"
}
check "case_first_report prints the SLUB report from its overwritten line through its stacks" first_report_slub
# A soft lockup's report: its frames come within the first twenty lines
# printed, the register dump and code bytes do not.
cat >"$tmp/d-lockup" <<'C'
[ 1339.710244] bash (6986): drop_caches: 3
[ 1368.982900] watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [bash:7599]
[ 1368.983148] Modules linked in: null_blk ib_srpt(OE) rdma_ucm sd_mod
[ 1368.984135] CPU: 1 UID: 0 PID: 7599 Comm: bash Tainted: G           OE      6.12.117+deb12-amd64 #1
[ 1368.984352] Tainted: [O]=OOT_MODULE, [E]=UNSIGNED_MODULE
[ 1368.984364] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014
[ 1368.984444] RIP: 0010:clear_page_erms+0xb/0x20
[ 1368.984997] Code: 48 8d 7f 40 75 d9 90 c3 cc cc cc cc 0f 1f 00 90 90 90
[ 1368.985148] RSP: 0000:ff851fc200ac3b60 EFLAGS: 00000246
[ 1368.985180] RAX: 0000000000000000 RBX: ff301ab1bb640c80 RCX: 0000000000000cd2
[ 1368.985190] RDX: fff04475800c0540 RSI: fff04475800c0580 RDI: ff301ab14301532e
[ 1368.985199] RBP: 0000000000000001 R08: ffffff800000007c R09: 0000000000000000
[ 1368.985208] R10: 0000000055555554 R11: 0000000000000000 R12: ff301ab1bb640c80
[ 1368.985219] R13: 0000000000000003 R14: 0000000000000000 R15: 0000000000000000
[ 1368.985290] FS:  00007ff309665740(0000) GS:ff301ab1b9300000(0000) knlGS:0000000000000000
[ 1368.985312] CS:  0010 DS: 0000 ES: 0000 CR0: 0000000080050033
[ 1368.985323] CR2: 00007ff309841a88 CR3: 0000000003918000 CR4: 0000000000751ef0
[ 1368.985330] Call Trace:
[ 1368.985331]  <IRQ>
[ 1368.985332]  ? watchdog_timer_fn+0x21b/0x2a0
[ 1368.985333]  </IRQ>
[ 1368.985334]  <TASK>
[ 1368.985335]  get_page_from_freelist+0x5f1/0x1180
C
first_report_lockup() {
	local o
	o=$(case_first_report "$tmp/d-lockup" | head -n 20)
	grep -q '^#   .*soft lockup - CPU#1' <<<"$o" &&
		grep -q '^#   .*RIP: 0010:clear_page_erms' <<<"$o" &&
		grep -q '^#   .*get_page_from_freelist' <<<"$o" &&
		! grep -q -e 'RAX: ' -e 'Code: ' -e 'Hardware name' <<<"$o"
}
check "case_first_report's first 20 lines reach a soft lockup's frames, without its registers" first_report_lockup
check "case_first_report prints nothing for a slice without a report" \
	test -z "$(case_first_report "$tmp/c-clean")"

# guest_clock_verdict (clock.sh): the guest's uptime at the job's end
# against QEMU's time. The fast one is a guest that calibrated its TSC far
# too low (scripts/vm/boot.sh), its uptime well ahead of QEMU's time.
. "$SRPT_ROOT/tests/vm/clock.sh"
clock_console() { # clock_console FILE UPTIME
	printf '[    1.000000] clocksource: Switched to clocksource tsc\nsrpt-vm-init: job exited with status 0 (%ss), powering off\n[  %s] reboot: Power down\n' "$2" "$2" >"$1"
}
clock_console "$tmp/k-fast" 314.93; echo 231.9 >"$tmp/k-fast.el"
clock_console "$tmp/k-good" 140.02; echo 149.7 >"$tmp/k-good.el"
clock_console "$tmp/k-slow" 700.5; echo 1500.0 >"$tmp/k-slow.el"
clock_console "$tmp/k-long" 1410.2; echo 1500.0 >"$tmp/k-long.el"
printf 'srpt-vm-init: starting job\n' >"$tmp/k-died"; echo 80.0 >"$tmp/k-died.el"
clock_is() { # clock_is RC CONSOLE ELAPSED BOOTS: guest_clock_verdict returns RC
	local rc=0
	guest_clock_verdict "$2" "$3" "$4" >/dev/null || rc=$?
	[ "$rc" = "$1" ]
}
check "a guest up 314.9 s after 231.9 s of QEMU ran fast" clock_is 1 "$tmp/k-fast" "$tmp/k-fast.el" 1
check "a guest up 140.0 s after 149.7 s of QEMU kept pace" clock_is 0 "$tmp/k-good" "$tmp/k-good.el" 1
check "a guest up 700.5 s after 1500 s of QEMU ran slow" clock_is 1 "$tmp/k-slow" "$tmp/k-slow.el" 1
check "... unless a boot before it counts in QEMU's time" clock_is 0 "$tmp/k-slow" "$tmp/k-slow.el" 2
check "a guest up 1410.2 s after 1500 s of QEMU kept pace" clock_is 0 "$tmp/k-long" "$tmp/k-long.el" 1
check "a guest that did not finish its job is not judged" clock_is 2 "$tmp/k-died" "$tmp/k-died.el" 1
check "the fast verdict says by how much" \
	grep -q 'ran fast: uptime 314.9 s when its job ended, after 231.9 s of QEMU (1.36x)' \
	<(guest_clock_verdict "$tmp/k-fast" "$tmp/k-fast.el" 1)

# fail inside a command substitution: its reason reaches the case's log
# (stdout and stderr together), not only the caller's variable.
fail_inside() {
	bash -c '. "$SRPT_ROOT/tests/vm/lib.sh"; v=$(fail "the inner reason") || exit 1; echo "not reached $v"' \
		>"$tmp/fail-inside" 2>&1
	[ $? = 1 ] && grep -qx 'FAIL: the inner reason' "$tmp/fail-inside"
}
check "fail inside \$(...) keeps its reason in the log" fail_inside

echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
