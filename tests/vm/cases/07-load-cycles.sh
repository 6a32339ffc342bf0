#!/bin/bash
# 07 20 load/unload cycles with rxe0 present, each creating a target port and
# TPG (alternating GUID and GID form), enabling and removing them.
. "$SRPT_ROOT/tests/vm/lib.sh"

N=${SRPT_CYCLES:-20}
guid=$(port_guid_name)
gid=$(port_gid_name)
for i in $(seq "$N"); do
	if [ $((i % 2)) = 1 ]; then name=$guid; else name=$gid; fi
	srpt_insmod >/dev/null || fail "cycle $i: insmod failed"
	mkdir "$SRPT_CFS" || fail "cycle $i: mkdir $SRPT_CFS failed"
	mkdir "$SRPT_CFS/$name" "$SRPT_CFS/$name/tpgt_1" || fail "cycle $i: mkdir tport $name failed"
	echo 1 >"$SRPT_CFS/$name/tpgt_1/enable" || fail "cycle $i: enable failed"
	echo 0 >"$SRPT_CFS/$name/tpgt_1/enable" || fail "cycle $i: disable failed"
	rmdir "$SRPT_CFS/$name/tpgt_1" "$SRPT_CFS/$name" "$SRPT_CFS" || fail "cycle $i: rmdir failed"
	rmmod ib_srpt || fail "cycle $i: rmmod failed"
	srpt_loaded && fail "cycle $i: still loaded after rmmod"
	echo "cycle $i ok ($name)"
done
exit 0
