#!/bin/bash
# 02 configfs tree: after load, mkdir of the fabric directory target/srpt
# (what rtslib does; target core creates a fabric's group only on that mkdir)
# gives discovery_auth/rdma_cm_port reading 0; the fabric directory pins the
# module; removing it lets the module unload.
. "$SRPT_ROOT/tests/vm/lib.sh"

srpt_insmod || fail "insmod failed"
run mkdir "$SRPT_CFS"
find "$SRPT_CFS" | sort
assert_dir "$SRPT_CFS/discovery_auth"
assert_file "$SRPT_CFS/discovery_auth/rdma_cm_port"
assert_eq "$(cat "$SRPT_CFS/discovery_auth/rdma_cm_port")" 0 "discovery_auth/rdma_cm_port"
# No target port exists until one is created.
ports=$(srpt_port_dirs)
assert_eq "$ports" "" "target ports right after load"

# The fabric directory holds a reference on the module.
echo "+ rmmod ib_srpt (expected to fail: in use)"
rmmod ib_srpt 2>&1 && fail "rmmod succeeded while $SRPT_CFS exists"
srpt_loaded || fail "module gone after refused rmmod"

run rmdir "$SRPT_CFS"
assert_absent "$SRPT_CFS"
run rmmod ib_srpt
# The fabric directory can be created again after a reload.
srpt_load
assert_eq "$(cat "$SRPT_CFS/discovery_auth/rdma_cm_port")" 0 "rdma_cm_port after reload"
run rmdir "$SRPT_CFS"
run rmmod ib_srpt
exit 0
