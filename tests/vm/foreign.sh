# A guest kernel that died of a report no code of ours can have caused;
# sourced by tests/vm/run.sh (the host) and tests/vm/lib-checks.sh.
#
# The kernel's taint flags are sticky for the life of a boot, and loading any
# module built outside the kernel tree (ib_srpt, the test IB/CM initiator,
# the runner's self-test module) sets flag O (TAINT_OOT_MODULE) for good.
# Every report prints the flags ("CPU: 1 UID: 0 PID: 77 Comm: gcc Not
# tainted 6.12.117+deb12-amd64 #1", "... Tainted: G        W  O  ..."; a
# SLUB report "BUG kmalloc-64 (Not tainted): ..."). So when no flags line
# on a console carries O, none of our modules had been loaded in that boot
# when the kernel reported: the report is about the kernel or the emulator
# (under TCG: a stale translation after the kernel patched its own code,
# "Oops: int3" at boot; a double fault with garbage in EFLAGS), not about
# anything this project builds. tests/vm/run.sh boots such a guest once
# more for the cases it had not reported (tests/vm/README.md, "Boots that
# do not reach the job, and foreign deaths").
#
# The same reading of reports prints a failed case's first report whole
# (case_first_report), for the host's TAP output.
#
# console_report_lines FILE: FILE's lines that are kernel reports
# (kernel-reports.txt), numbered; the runner's own marker and init lines
# carry case names and paths and never count.
console_report_lines() {
	grep -n '' "$1" 2>/dev/null | grep -v -e 'srpt-vm-mark: ' -e 'srpt-vm-init: ' |
		grep -E -- "$(grep -v -e '^#' -e '^$' "${SRPT_ROOT:?}/tests/vm/kernel-reports.txt")"
}

# case_first_report FILE: prints, as TAP comments, FILE's first kernel report
# with the 3 lines before it (SLUB names the overwritten bytes there) and up
# to 60 lines of it (its stacks, and for SLUB where the object was allocated
# and freed); nothing when FILE holds no report. The register dump, the
# code bytes and the hardware line are left out (FILE keeps them): CI shows
# the first twenty-odd lines of a failed suite, and with them in, a soft
# lockup's report would end there before its first frame (lib-checks.sh:
# "case_first_report's first 20 lines reach a soft lockup's frames").
case_first_report() {
	local f=$1 n
	n=$(console_report_lines "$f" | head -n 1 | cut -d: -f1)
	[ -n "$n" ] || return 0
	echo "# --- the first kernel report of the case ($f, line $n; registers and code bytes left out)"
	tail -n "+$((n > 3 ? n - 3 : 1))" "$f" |
		grep -v -E '\] (Code|RSP|RAX|RDX|RBP|R10|R13|FS|CS|CR2|DR0|DR3|PKRU): |\] Hardware name: ' |
		head -n 63 | sed 's/^/#   /'
}

# console_taints FILE: the flags of every report on FILE, one per line:
# "Not tainted" or the letters after "Tainted: " (blanks removed).
console_taints() {
	grep -v -e 'srpt-vm-mark: ' -e 'srpt-vm-init: ' "$1" 2>/dev/null |
		grep -oE 'Not tainted|Tainted: [A-Z ]*[A-Z]' |
		sed '/^Tainted: /{s/^Tainted: //; s/ //g}'
}

# console_report_foreign FILE: success when FILE holds a kernel report
# (kernel-reports.txt) and every flags line on it lacks O, so that no
# out-of-tree module was ever loaded in the boot that FILE records. A
# console with no flags line at all is not foreign (nothing proves it).
console_report_foreign() {
	local f=$1 taints
	[ -n "$(console_report_lines "$f")" ] || return 1
	taints=$(console_taints "$f")
	[ -n "$taints" ] || return 1
	! grep -q 'O' <<<"$taints"
}
