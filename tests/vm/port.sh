# Helpers for the cases that watch rxe0's port (51, 52, 53, 55): its state,
# waiting for a condition, and the Device Management agent's capability bit
# and query tool. Sourced after lib.sh.

# port_state: rxe0 port 1's state as sysfs shows it ("1: DOWN", "4: ACTIVE").
port_state() { cat "/sys/class/infiniband/$RXE/ports/1/state"; }
port_is() { case $(port_state) in *"$1"*) return 0 ;; esac; return 1; }
# wait_port STATE: until rxe0 port 1 is in STATE (DOWN, ACTIVE).
wait_port() { wait_for "port $1 (state: $(port_state))" port_is "$1"; }

# dm_setup: DMQ, the DM query tool (build/tools/dm_query), usable: the tool
# is built and ib_umad is loaded.
dm_setup() {
	DMQ=$SRPT_ROOT/build/tools/dm_query
	[ -x "$DMQ" ] || fail "$DMQ missing (make tools)"
	modprobe ib_umad || fail "modprobe ib_umad"
}
# dm_cap: rxe0 port 1's IsDeviceManagementSupported bit (19 of cap_mask).
dm_cap() { echo $(($(cat "/sys/class/infiniband/$RXE/ports/1/cap_mask") >> 19 & 1)); }
