#!/bin/bash
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
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
settle() { sync; echo 3 >/proc/sys/vm/drop_caches; sleep 1; }

for i in 1 2 3; do cycle "warm-up $i"; done
settle
avail0=$(meminfo MemAvailable) slab0=$(meminfo Slab)
start=$(date +%s)
for i in $(seq "$CYCLES"); do cycle "$i"; done
settle
avail1=$(meminfo MemAvailable) slab1=$(meminfo Slab)
log "$CYCLES cycles in $(($(date +%s) - start)) s"
log "MemAvailable: $avail0 kB -> $avail1 kB; Slab: $slab0 kB -> $slab1 kB"
# Noise: up to ~20 MiB of page cache, per-CPU lists and slab churn (seen
# over 10 cycles); a leak of one channel's buffers per cycle (about 1 MiB of
# receive ring) shows as 100 MiB over 100 cycles.
[ $((avail0 - avail1)) -lt 32768 ] || fail "MemAvailable dropped by $((avail0 - avail1)) kB"
[ $((slab1 - slab0)) -lt 8192 ] || fail "Slab grew by $((slab1 - slab0)) kB"
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
