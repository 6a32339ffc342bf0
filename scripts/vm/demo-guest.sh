#!/bin/bash
# Guest half of scripts/vm/demo.sh: runs inside the test guest and shows the
# module at work.  Uses the helpers of the VM tests (tests/vm/lib.sh).
. "$SRPT_ROOT/tests/vm/lib.sh"
set -eE
# When a step fails, show the kernel's side (e.g. why insmod said EINVAL).
trap 'echo; echo "demo: the last step failed; last kernel log lines:"; dmesg | tail -n 8' ERR
step() { echo; echo "### $*"; }
show() { echo "\$ $*"; eval "$@"; }

step "guest kernel"
show uname -r

step "load the module under test (dependencies from the guest's module tree)"
srpt_insmod
show "lsmod | grep srpt"

step "create Soft-RoCE over a veth pair (192.0.2.1 <-> 192.0.2.2, guest-only)"
kmsg_mark "demo rxe"
rxe_add
show "ip -br addr show dev $VETH0; ip -br addr show dev $VETH1"
show rdma link show
show "cat /sys/class/infiniband/$RXE/ports/1/gids/0"

step "port names the module found (its kernel log lines)"
sleep 0.5
lines=$(dmesg | grep -F ib_srpt | grep -E "$(port_guid_name)|$(port_gid_name)" || true)
if [ -n "$lines" ]; then
	echo "$lines"
else
	echo "(no ib_srpt line names the port; the in-tree driver logs none)"
fi
echo "names computed from GID 0: GUID form $(port_guid_name), GID form $(port_gid_name)"

step "configfs: the fabric directory (created by mkdir, as rtslib does)"
show mkdir -p "$SRPT_CFS"
show find "$SRPT_CFS"

step "create a target port (GUID form) with TPG tpgt_1, and enable it"
name=$(port_guid_name)
show mkdir "$SRPT_CFS/$name"
show mkdir "$SRPT_CFS/$name/tpgt_1"
show "echo 1 > $SRPT_CFS/$name/tpgt_1/enable"
show find "$SRPT_CFS" -maxdepth 3
show cat "$SRPT_CFS/$name/tpgt_1/enable"

step "clean up: disable, remove, unload"
show "echo 0 > $SRPT_CFS/$name/tpgt_1/enable"
show rmdir "$SRPT_CFS/$name/tpgt_1" "$SRPT_CFS/$name" "$SRPT_CFS"
show rmmod ib_srpt
show "lsmod | grep srpt || echo '(ib_srpt unloaded)'"

step "kernel log lines of the module"
dmesg | grep -F ib_srpt || echo "(none)"
echo
echo "demo: done, powering off"
