#!/bin/bash
# 64 README.md's targetcli walkthrough, as an administrator follows it: its
# block (the first sh block of "### targetcli") is taken from README.md
# and run as it stands, with the module under test loaded first (the
# block's modprobe then finds it loaded). ib_srp must log in with the two
# channels the block asks for, and `targetcli sessions detail` must print
# what the README shows, line for line, but for the ids and login numbers.
# Then a login the ACL does not admit (initiator_ext 0x40): the initiator is
# refused, and the kernel log has the line the README's troubleshooting
# table gives for that refusal (reason 0x00010006, its cause text), so an
# administrator reading the log finds the row that says what to do.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"

readme=$SRPT_ROOT/README.md
# readme_block: the first ```sh block after the "### targetcli" heading.
readme_block() {
	awk '/^### targetcli$/ { s = 1 } s && /^```sh$/ { b = 1; next } b && /^```$/ { exit } b' "$readme"
}
# readme_sessions_sample: the README's `targetcli sessions detail` output.
readme_sessions_sample() {
	awk '/^# targetcli sessions detail$/ { b = 1; next } b && /^```$/ { exit } b' "$readme"
}
# sessions_shape: ids, addresses' ids and login numbers replaced, so that
# two outputs compare by their form and states.
sessions_shape() {
	sed -E -e 's/0x[0-9a-f]{32}/<id>/g' -e 's/ib\.[0-9a-f]{32}/ib.<id>/g' \
		-e 's/(sid|cid): [0-9]+/\1: N/g' -e 's/[[:space:]]+$//'
}

block=$(readme_block)
[ -n "$block" ] || fail "README.md has no sh block under '### targetcli'"
echo "$block" | grep -q "targetcli /srpt create" || fail "the README's block is not the targetcli walkthrough"
sample=$(readme_sessions_sample)
[ -n "$sample" ] || fail "README.md has no 'targetcli sessions detail' sample"

srp_targetcli_env
srpt_load
srp_nullb
echo "$block" >/tmp/64-block.sh
log "the README's block:"
sed 's/^/  /' /tmp/64-block.sh
bash -e -x /tmp/64-block.sh || fail "the README's targetcli block failed"
srp_disk >/dev/null || fail "no LIO disk after the README's add_target"
srp_wait_channels 2

out=$(targetcli sessions detail 2>&1) || fail "targetcli sessions detail: $out"
log "sessions detail: $out"
assert_eq "$(echo "$out" | sessions_shape)" "$(echo "$sample" | sessions_shape)" \
	"targetcli sessions detail as the README shows it"

# A refused login, found in the README's troubleshooting table by its line.
row=$(grep -E '^\| 0x00010006 \| `no ACL admits this initiator`' "$readme") ||
	fail "the README's troubleshooting table has no row for 'no ACL admits this initiator'"
cause=$(echo "$row" | cut -d'`' -f2)
kmsg_mark "64 refused"
G=$(cat "/sys/module/$SRPT_MODNAME/parameters/srpt_service_guid")
if echo "id_ext=${G#0x},ioc_guid=${G#0x},dest=$VETH0_IP:$SRP_PORT,initiator_ext=40" \
	>"$SRP_SYSFS/add_target" 2>/dev/null; then
	fail "a login no ACL admits was accepted"
fi
expect_dmesg_since "64 refused" \
	"ib_srpt: login from $VETH0_IP \\(0x0000000000000040[0-9a-f]{16}\\) rejected: 0x00010006 .*: $cause" \
	"the refusal's log line is the README's"

srp_logout
run targetctl clear
rmmod ib_srp
srpt_unload || fail "unload failed"
rmmod null_blk
exit 0
