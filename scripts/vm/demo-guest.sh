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

. "$SRPT_ROOT/tests/vm/srp.sh"

step "serve a null_blk LUN: target port (GUID form), TPG, LUN, ACL for 192.0.2.1, RDMA/CM on port $SRP_PORT"
name=$(port_guid_name)
show modprobe null_blk nr_devices=1 memory_backed=1 gb=1 bs=512 queue_mode=2
srp_target "$name" "$VETH0_IP"
show find "$SRPT_CFS/$name" -maxdepth 5 -path '*attrib*' -prune -o -print
show "grep -H . $SRPT_CFS/$name/tpgt_1/attrib/*"

step "log in with the in-kernel initiator ib_srp over RDMA/CM"
g=$(srp_node_guid)
show modprobe -a ib_srp sd_mod
show "echo id_ext=$g,ioc_guid=$g,dest=$VETH0_IP:$SRP_PORT > $SRP_SYSFS/add_target"
dev=$(srp_disk) || { echo "demo: no disk appeared"; exit 1; }
show lsblk "$dev"
show cat /sys/kernel/debug/ib_srpt/channels

step "write 32 MiB of random data to $dev and read it back (direct I/O)"
show dd if=/dev/urandom of=/tmp/pattern bs=1M count=32 status=none
show dd if=/tmp/pattern of="$dev" bs=1M oflag=direct status=progress
show dd if="$dev" of=/tmp/back bs=1M count=32 iflag=direct status=progress
show "cmp /tmp/pattern /tmp/back && echo 'verified: the data read back is the data written'"

step "fio over $dev: 4 KiB random read and write at QD32 (IOPS), 1 MiB sequential (MB/s)"
# Short runs: the guest is emulated (TCG), so the figures show the data path
# works under load, not what the hardware would do.
fio_show() {
	fio --output-format=json --output=/tmp/demo-fio.json --ioengine=libaio --direct=1 \
		--filename="$dev" --time_based --runtime=5 --group_reporting "$@" >/dev/null &&
	python3 - "$1" <<'PY'
import json, sys
t = open("/tmp/demo-fio.json").read()
j = json.loads(t[t.index("{"):])["jobs"][0]
for d in ("read", "write"):
    if j[d]["io_bytes"]:
        print("  %-14s %-5s %8.0f IOPS  %8.1f MB/s" % (sys.argv[1].split("=")[1], d,
              j[d]["iops"], j[d]["bw_bytes"] / 1e6))
PY
}
fio_show --name=randread-4k --rw=randread --bs=4k --iodepth=32 --numjobs=2 --size=64M
fio_show --name=randwrite-4k --rw=randwrite --bs=4k --iodepth=32 --numjobs=2 --size=64M
fio_show --name=seqread-1m --rw=read --bs=1M --iodepth=32 --size=256M
fio_show --name=seqwrite-1m --rw=write --bs=1M --iodepth=32 --size=256M

step "log out, tear down, unload"
show "echo 1 > /sys/class/srp_remote_ports/port-*/delete"
sleep 1
show cat /sys/kernel/debug/ib_srpt/channels
srp_cleanup   # logs out, removes the configfs tree (target/srpt too) and the backstore
show rmmod ib_srpt
show "lsmod | grep srpt || echo '(ib_srpt unloaded)'"

step "kernel log lines of the module"
dmesg | grep -F ib_srpt || echo "(none)"
echo
echo "demo: done, powering off"
