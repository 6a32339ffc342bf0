#!/bin/bash
# 01 load: the module loads by path next to its in-tree dependencies, shows in
# lsmod, modinfo lists its three parameters, and the parameters read back with
# their default values; then it unloads.
. "$SRPT_ROOT/tests/vm/lib.sh"

srpt_loaded && fail "ib_srpt is loaded before the case (runner bug)"
run modinfo "$SRPT_MODULE"
parms=$(modinfo -F parm "$SRPT_MODULE")
for p in srp_max_req_size srpt_srq_size srpt_service_guid; do
	echo "$parms" | grep -q "^$p:" || fail "modinfo: no parameter $p"
done
name=$(modinfo -F name "$SRPT_MODULE")
assert_eq "$name" ib_srpt "modinfo name"

srpt_insmod || fail "insmod failed"
lsmod | grep -w '^ib_srpt' || fail "ib_srpt not in lsmod after insmod"
assert_eq "$(cat /sys/module/ib_srpt/initstate)" live "initstate"

P=/sys/module/ib_srpt/parameters
for p in srp_max_req_size srpt_srq_size srpt_service_guid; do
	assert_file "$P/$p"
done
assert_eq "$(cat $P/srp_max_req_size)" 8276 "srp_max_req_size default"
assert_eq "$(cat $P/srpt_srq_size)" 4095 "srpt_srq_size default"
# srpt_service_guid: printed as 0x%016llx; by default the node GUID of the
# first RDMA device (rxe0 exists before the load), 0 with no device at all.
guid=$(cat $P/srpt_service_guid)
echo "$guid" | grep -Eq '^0x[0-9a-f]{16}$' || fail "srpt_service_guid '$guid' is not 0x%016llx"
want=0x$(tr -d : </sys/class/infiniband/$RXE/node_guid)
assert_eq "$guid" "$want" "srpt_service_guid default (node GUID of $RXE)"

run rmmod ib_srpt
srpt_loaded && fail "ib_srpt still loaded after rmmod"
lsmod | grep -qw '^ib_srpt' && fail "ib_srpt still in lsmod after rmmod"

# Non-default parameters are accepted and read back.
srpt_insmod srp_max_req_size=4200 srpt_srq_size=128 || fail "insmod with parameters failed"
assert_eq "$(cat $P/srp_max_req_size)" 4200 "srp_max_req_size=4200"
assert_eq "$(cat $P/srpt_srq_size)" 128 "srpt_srq_size=128"
run rmmod ib_srpt
exit 0
