#!/bin/bash
# 04 refusal of bad target port names: mkdir fails with EINVAL ("Invalid
# argument"), nothing remains, and (our module) the kernel log says why: a
# name of neither form, or one naming no RDMA port, each with its own line
# naming the refused name.
. "$SRPT_ROOT/tests/vm/lib.sh"

srpt_load
guid=$(port_guid_name)
gid=$(port_gid_name)
hex=${gid#0x}
# A GUID no port has: flip the last hex digit of ours.
last=${guid: -1}
other=$(printf '%x' $(( (0x$last + 1) % 16 )))
wrong_guid=${guid%?}$other
bad_names=(
	garbage                                    # not a port name at all
	"$wrong_guid"                              # well-formed GUID, no such port
	"0x${hex:0:30}"                            # GID form, 15 bytes
	"0x${hex}00"                               # GID form, 17 bytes
	0xfe800000000000001111222233334444         # well-formed GID, no such port
)
# refusal NAME: the kernel log line our module writes for NAME (an ERE; the
# names hold only hex digits, colons and an x).
refusal() {
	case "$1" in
	"$wrong_guid") echo "ib_srpt: no RDMA port has the GUID \"$1\"\$" ;;
	0xfe800000000000001111222233334444) echo "ib_srpt: no RDMA port has the GID \"$1\"\$" ;;
	*) echo "ib_srpt: target port name \"$1\" is neither a port GUID \(xxxx:xxxx:xxxx:xxxx\) nor a port GID \(0x \+ 32 hex digits\)\$" ;;
	esac
}
intree=0
srpt_is_intree && intree=1
for n in "${bad_names[@]}"; do
	[ "$n" = "$guid" ] && continue  # (upper-casing changed nothing: all digits)
	kmsg_mark "04 $n"
	expect_errno "Invalid argument" mkdir "$SRPT_CFS/$n"
	assert_absent "$SRPT_CFS/$n"
	if [ $intree = 1 ]; then
		log "in-tree module: not checking for a kernel log line about '$n'"
	else
		expect_dmesg_since "04 $n" "$(refusal "$n")" "kernel log line about '$n'"
	fi
done
assert_eq "$(srpt_port_dirs)" "" "port dirs after refused names"
# A good name still works afterwards.
tport_add "$guid"
tport_del "$guid"
if [ $intree = 0 ] && [ "${guid^^}" != "$guid" ]; then
	# Our module parses names case-insensitively (the in-tree one compares
	# them with strcmp): an upper-case spelling names the same port, and a
	# second directory for the same port and form is refused (the target
	# core turns every refusal into EINVAL) with a log line naming the first.
	tport_add "${guid^^}"
	kmsg_mark "04 second"
	expect_errno "Invalid argument" mkdir "$SRPT_CFS/$guid"
	expect_dmesg_since "04 second" "already has the target port $guid" "duplicate refused"
	tport_del "${guid^^}"
fi
srpt_unload || fail "unload failed"
exit 0
