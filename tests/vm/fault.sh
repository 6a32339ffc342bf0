# Helpers for the cases that inject faults or read the module's object
# counts (the fault walks 35-37 and every other case that sources this
# file): arm the module's fault points (debugfs ib_srpt/fault, the points
# in src/shim/fault.h), read its object counts (ib_srpt/objects) and walk a
# fault point with real logins. Sourced after lib.sh and srp.sh.
#
# A login is one SRP_LOGIN_REQ from a raw test initiator over the CM named by
# FAULT_CM (rdma_cm: build/tools/srp_login; ib_cm: srp_initiator --cm ib,
# which needs tests/vm/hostile.sh and ibcm.sh). fault_login prints one line:
#   established rsp_flags=...   rejected status=N reason=0x...   error ...

DBG=/sys/kernel/debug/ib_srpt
FAULT_CM=${FAULT_CM:-rdma_cm}
FAULT_TOOL=$SRPT_ROOT/build/tools/srp_login

fault_debugfs() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	[ -w "$DBG/fault" ] && [ -r "$DBG/objects" ] || fail "no $DBG/fault or $DBG/objects"
}

# fault_arm POINT N: the Nth call of POINT from now fails (0: disarm).
fault_arm() { echo "$1 $2" >"$DBG/fault" || fail "arming $1 $2 refused"; }
# The guest runs under TCG on a loaded host: the helpers below read the
# debugfs files with shell builtins only, no process per value.
# fault_read: F_CALLS_<point>, F_INJ_<point> from ib_srpt/fault.
fault_read() {
	local p armed calls inj
	while read -r p armed calls inj; do
		[ "$p" = "#" ] && continue
		printf -v "F_CALLS_$p" %s "$calls"
		printf -v "F_INJ_$p" %s "$inj"
	done <"$DBG/fault"
}
# fault_injected POINT: failures injected at POINT since load.
fault_injected() { fault_read; local v=F_INJ_$1; echo "${!v}"; }
# obj_read: O_<name> for every line of ib_srpt/objects; OBJLINE all of them.
obj_read() {
	local k v
	OBJLINE=
	while read -r k v; do
		printf -v "O_$k" %s "$v"
		OBJLINE+="$k=$v "
	done <"$DBG/objects"
}
obj() { obj_read; local v=O_$1; echo "${!v}"; }
objline() { obj_read; echo "$OBJLINE"; }

# fault_login [single|multi] [service GUID]: one login; its line on stdout.
# A GUID other than the target's makes the login a policy reject (0x00010003).
fault_login() {
	local guid=${2:-$FAULT_GUID}
	case $FAULT_CM in
	rdma_cm)
		# 60 s: without any answer the CM gives up well before (REQ timeouts).
		timeout 60 "$FAULT_TOOL" "$VETH0_IP" "$SRP_PORT" "$FAULT_IID" "$guid" \
			"${1:-multi}" 0
		;;
	ib_cm)
		# srp_initiator through srpt_test_ibcm.ko (tests/vm/ibcm.sh), its
		# line turned into srp_login's form.
		local line flags=1 rsp
		[ "${1:-multi}" = multi ] || flags=0
		line=$(timeout 60 "$SRPT_ROOT/build/tools/srp_initiator" --cm ib \
			--addr "$VETH0_IP" --service-id "$FAULT_GUID" --dev "$RXE" \
			--login "$FAULT_IID" "$guid$guid" --flags "$flags" | grep '^login=0 ')
		case "$(ti_field "$line" result)" in
		established)
			rsp=$(ti_field "$line" priv)
			echo "established rsp_flags=0x${rsp:52:2}" ;;
		rejected)
			echo "rejected status=$(ti_field "$line" cm_status) reason=$(ti_field "$line" reason)" ;;
		*) echo "error $line" ;;
		esac
		;;
	*) fail "no test initiator for $FAULT_CM" ;;
	esac
}

# fault_settle: until no channel, QP, CQ or session of ours is left (20 s).
fault_settle() {
	local i
	for i in $(seq 200); do
		obj_read
		[ "$O_channels" = 0 ] && [ "$O_qps" = 0 ] && [ "$O_cqs" = 0 ] &&
			[ "$O_sessions" = 0 ] && return 0
		sleep 0.1
	done
	fail "objects not released: $OBJLINE"
}

# rxe_res: RXE_QP, RXE_CQ: what the RDMA core counts on rxe0 (every user's).
rxe_res() {
	local line
	line=$(rdma resource show "$RXE")
	[[ $line =~ \ qp\ ([0-9]+) ]] && RXE_QP=${BASH_REMATCH[1]}
	[[ $line =~ \ cq\ ([0-9]+) ]] && RXE_CQ=${BASH_REMATCH[1]}
}

# fault_baseline: remembers the live allocation counts (call when settled).
fault_baseline() {
	# A receive ring cached by one login would stand in for the next one's
	# allocation, and the baseline's count would move with the cache (case
	# 44 failed so in a clean-clone make check).
	[ "$(cat /sys/module/$SRPT_MODNAME/parameters/recv_ring_cache)" = 0 ] ||
		fail "this case counts allocations exactly: load with recv_ring_cache=0"
	obj_read
	rxe_res
	BASE_ALLOCS=$O_allocs BASE_BYTES=$O_alloc_bytes
	BASE_QPS_RXE=$RXE_QP BASE_CQS_RXE=$RXE_CQ
	log "baseline: $OBJLINE rxe qp=$RXE_QP cq=$RXE_CQ"
}

# fault_check_clean WHAT: settled, the cm_id rule holds and everything the
# module allocated since the baseline is freed, and rxe0 holds as many QPs
# and CQs as at the baseline.
fault_check_clean() {
	fault_settle
	rxe_res
	[ "$O_ownership_broken" = 0 ] || fail "$1: ownership rule broken: $OBJLINE"
	# Every cm_id a channel adopted was destroyed by it, once; and the
	# login handler answered 0 exactly for those.
	[ "$O_cm_adopted" = "$O_cm_destroyed" ] ||
		fail "$1: adopted cm_ids not destroyed exactly once: $OBJLINE"
	[ "$O_cm_destroyed" = "$O_cm_destroyed_by_channel" ] ||
		fail "$1: core and shim disagree on cm_id destroys: $OBJLINE"
	[ "$O_login_ret_zero" = "$O_cm_adopted" ] ||
		fail "$1: login answered 0 without a channel owning the cm_id: $OBJLINE"
	[ "$O_allocs" = "$BASE_ALLOCS" ] && [ "$O_alloc_bytes" = "$BASE_BYTES" ] ||
		fail "$1: allocations $O_allocs ($O_alloc_bytes bytes), baseline $BASE_ALLOCS ($BASE_BYTES bytes)"
	[ "$RXE_QP" = "$BASE_QPS_RXE" ] && [ "$RXE_CQ" = "$BASE_CQS_RXE" ] ||
		fail "$1: rxe0 holds qp=$RXE_QP cq=$RXE_CQ, baseline qp=$BASE_QPS_RXE cq=$BASE_CQS_RXE"
}

# fault_expect_login WHAT OUT WANT...: OUT (a login's line) starts with one of WANT.
fault_expect_login() {
	local what=$1 out=$2 w
	shift 2
	for w in "$@"; do
		case "$out" in "$w"*) return 0 ;; esac
	done
	fail "$what: initiator saw '$out', expected: $*"
}

# fault_walk POINT WANT...: for N = 1, 2, ...: arm POINT at N, log in, and
# check that the injected failure gave the initiator one of WANT, the handler
# result matches who destroyed the cm_id, and nothing leaked; until a login
# succeeds with POINT still armed (every call of POINT on the login path
# was failed once). Sets WALK_STEPS to the failures injected.
fault_walk() {
	local point=$1 n=1 out inj0 nz0 z0 ret v
	shift
	while :; do
		[ "$n" -le 400 ] || fail "$point: still failing logins after 400 steps"
		fault_read
		v=F_INJ_$point
		inj0=${!v}
		obj_read
		nz0=$O_login_ret_nonzero z0=$O_login_ret_zero
		fault_arm "$point" "$n"
		out=$(fault_login multi)
		fault_read
		obj_read
		if [ "${!v}" = "$inj0" ]; then
			fault_arm "$point" 0
			fault_expect_login "$point $n (not reached)" "$out" established
			fault_check_clean "$point $n (not reached)"
			WALK_STEPS=$((n - 1))
			log "$point: $WALK_STEPS failures injected, then '$out'"
			return 0
		fi
		if [ "$O_login_ret_nonzero" = $((nz0 + 1)) ] && [ "$O_login_ret_zero" = "$z0" ]; then
			ret=nonzero
		elif [ "$O_login_ret_zero" = $((z0 + 1)) ] && [ "$O_login_ret_nonzero" = "$nz0" ]; then
			ret=zero
		else
			fail "$point $n: not one login handler result: $OBJLINE"
		fi
		echo "$point $n: handler $ret: $out"
		fault_expect_login "$point $n" "$out" "$@"
		fault_check_clean "$point $n"
		n=$((n + 1))
	done
}

# fault_warm_up: three logins, so that rxe0's CQ pool has its CQs and the
# caches their slabs; then the baseline.
fault_warm_up() {
	local i out
	for i in 1 2 3; do
		out=$(fault_login multi)
		fault_expect_login "warm-up $i" "$out" established
	done
	fault_settle
	fault_baseline
}

# fault_target: the LUN, an ACL for the test initiator (its address is
# $VETH0_IP) and srp_sq_size 16 (so a channel has 16 receive buffers and
# command slots, which keeps the allocation walk short); baseline taken.
fault_target() {
	local name t
	FAULT_IID=$(srp_initiator_id 0x5a5a)
	if [ "$FAULT_CM" = ib_cm ]; then
		# IB/CM: GID-named port, ACL by initiator port id (tests/vm/hostile.sh).
		name=$(port_gid_name)
		srp_target "$name" "0x$FAULT_IID" no-enable
	else
		name=$(port_guid_name)
		srp_target "$name" "$VETH0_IP" no-enable
	fi
	t=$SRPT_CFS/$name/tpgt_1
	run sh -c "echo 16 > $t/attrib/srp_sq_size"
	run sh -c "echo 1 > $t/enable"
	FAULT_GUID=$(srp_node_guid)
	fault_debugfs
}
