#!/bin/bash
# case-timeout: 900
# (A hang bound, not a check: a cycle takes 3-8 s under TCG on a loaded
# host, 5.2 s on average in a clean-clone run beside a DKMS build, where
# 90 of the 103 cycles fitted the default 480 s.)
# 13 100 login/logout cycles: every login sees the disk, every logout
# releases every channel, and memory comes back: MemAvailable and Slab after
# the cycles within noise of their values after three warm-up cycles.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"

CYCLES=${SRPT_LOGIN_CYCLES:-100}
srpt_load
srp_target "$(port_guid_name)" "$VETH0_IP"

cycle() {
	srp_login "ch_count=1" || fail "cycle $1: add_target failed"
	srp_disk >/dev/null || fail "cycle $1: no disk"
	srp_logout
	srp_wait_channels 0
}
memline() {
	local k
	for k in MemFree MemAvailable Slab SUnreclaim Percpu VmallocUsed PageTables KernelStack; do
		printf '%s=%s ' "$k" "$(meminfo $k)"
	done
	echo
}
for i in 1 2 3; do cycle "warm-up $i"; done
mem_baseline
log "before: $(memline)"
start=$(date +%s)
for i in $(seq "$CYCLES"); do cycle "$i"; done
log "$CYCLES cycles in $(($(date +%s) - start)) s"
# The receive rings and command-context sets kept for the next logins
# (RecvRingCache, CmdContextCache) are given back 5 s after the last
# release: the memory check below sees none of them. On 6.1, 6.12 and 7.3
# each login follows the last release within a second or two and takes the
# released channel's ring and contexts, so the disk scan of each cycle runs
# on rebound contexts; on the debug kernel
# a cycle's logout and login are about 20 s apart and nothing is reused,
# hence counts logged, not required.
if ! srpt_is_intree; then
	log "receive rings reused by a login: $(srpt_object recv_rings_reused) of $CYCLES"
	log "command-context sets reused by a login: $(srpt_object cmd_sets_reused) of $CYCLES"
	poll_until 12 srpt_object_is recv_rings_cached 0 ||
		fail "cached receive rings not given back: $(srpt_object recv_rings_cached) still cached"
	poll_until 12 srpt_object_is cmd_sets_cached 0 ||
		fail "cached command contexts not given back: $(srpt_object cmd_sets_cached) sets still cached"
fi
mem_settle
log "after:  $(memline)"
mem_check_back
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
