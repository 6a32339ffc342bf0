# The guest login fuzz campaign (cases 28 and 29, make fuzz-guest):
# tests/tools/login_fuzz against the module under test. Sourced after
# lib.sh, srp.sh and hostile.sh.
#
# Parameters (exported into the guest by tests/vm/run.sh):
#   SRPT_CASE_LOGIN_FUZZ_RDMA     logins over RDMA/CM (case 28; default 500)
#   SRPT_CASE_LOGIN_FUZZ_IB       logins over IB/CM (case 29; default 100)
#   SRPT_CASE_LOGIN_FUZZ_SEED     the campaign's seed (default 1)
#   SRPT_CASE_LOGIN_FUZZ_SECONDS  time limit of one campaign (default 200,
#                                 times WAIT_SCALE on the debug kernel); a
#                                 campaign cut short by it fails the case
#   SRPT_CASE_LOGIN_FUZZ_PARALLEL logins at a time (default 4), each thread
#                                 its own initiator port id (ext 1, 2, ...)

LOGIN_FUZZ=$SRPT_ROOT/build/tools/login_fuzz

# login_fuzz_campaign CM COUNT: COUNT logins over CM against a target that
# admits the test initiator, then: every answer was the login table's (the
# tool checks), all COUNT ran, no channel is left, a valid login is still
# established, and the module unloads.
login_fuzz_campaign() {
	local cm=$1 count=$2 seed=${SRPT_CASE_LOGIN_FUZZ_SEED:-1}
	local secs=${SRPT_CASE_LOGIN_FUZZ_SECONDS:-200} par=${SRPT_CASE_LOGIN_FUZZ_PARALLEL:-4}
	local out rc done t a tpg tmo=3000
	# An answer later than this is a failure ("timeout"): 3 s is about 100
	# times a login's time on a production kernel under TCG; on the debug
	# kernel under load an IB/CM login can take longer than 3 s (case 29),
	# so there the limit is 30 s.
	! kernel_is_debug || tmo=30000
	# The campaign's time limit only bounds a run that stalls: all COUNT
	# logins must still run. On the debug kernel beside two other debug
	# guests 500 RDMA/CM logins (case 28) take longer than 200 s, so there
	# it is WAIT_SCALE times as long, unless set.
	[ -n "${SRPT_CASE_LOGIN_FUZZ_SECONDS:-}" ] || secs=$((secs * WAIT_SCALE))
	[ -x "$LOGIN_FUZZ" ] || fail "$LOGIN_FUZZ missing (make tools)"
	out=$(mktemp)
	if [ "$cm" = ib ]; then
		# An IB/CM login's session name is its initiator port id (0x + 32
		# hex) in TPGs of GID-named ports: one ACL per thread.
		srp_target "$(port_gid_name)" "0x$(ti_initiator_port_id)"
		tpg=$SRPT_CFS/$(port_gid_name)/tpgt_1
		for t in $(seq 2 "$par"); do
			a=$tpg/acls/0x$(ti_initiator_port_id "$t")
			run mkdir "$a" "$a/lun_0"
			run ln -s "$tpg/lun/lun_0" "$a/lun_0/lun_0"
		done
	else
		ti_hostile_target "$cm"
	fi
	kmsg_mark "login fuzz $cm"
	log "login_fuzz over $cm: $count logins, $par at a time, seed $seed, at most ${secs}s"
	"$LOGIN_FUZZ" --cm "$cm" --addr "$VETH0_IP" --port "$SRP_PORT" \
		--service-id "$(srp_node_guid)" --dev "$RXE" \
		--i-port-id "$(ti_initiator_port_id)" --t-port-id "$(ti_target_port_id)" \
		--max-req-size "$(cat "/sys/module/$SRPT_MODNAME/parameters/srp_max_req_size")" \
		--count "$count" --seed "$seed" --seconds "$secs" --parallel "$par" \
		--timeout-ms "$tmo" >"$out" 2>&1
	rc=$?
	sed 's/^/  /' "$out"
	[ $rc -eq 0 ] || fail "login_fuzz over $cm: answers other than the login table's (exit $rc)"
	done=$(sed -n 's/^login_fuzz: \([0-9]*\) logins, [0-9]* failures$/\1/p' "$out" | tail -n 1)
	[ "${done:-0}" -ge "$count" ] || fail "login_fuzz over $cm: only ${done:-0} of $count logins ran"
	rm -f "$out"

	# Every channel of the campaign is released, and the target still serves.
	srp_wait_channels 0
	out=$("$TI" --cm "$cm" --addr "$VETH0_IP" --port "$SRP_PORT" \
		--service-id "$(srp_node_guid)" --dev "$RXE" \
		--login "$(ti_initiator_port_id)" "$(ti_target_port_id)")
	log "$cm valid login after the campaign: $out"
	[ "$(ti_field "$out" result)" = established ] ||
		fail "$cm: a valid login after the campaign was not established"
	srp_wait_channels 0
	expect_dmesg_since "login fuzz $cm" "ib_srpt: login from .* rejected: 0x0001000" \
		"refusals logged"
}
