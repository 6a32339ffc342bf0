#!/bin/bash
# 29 login fuzz over IB/CM on the RoCE port: as case 28, with 100 logins
# (make fuzz-guest: 2,000) sent by the test-only module srpt_test_ibcm.ko.
# Skipped when login_fuzz was built without the IB/CM back end
# (tests/tools/ib_cm.c) or the module was not built.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/hostile.sh"
. "$SRPT_ROOT/tests/vm/login_fuzz.sh"

ibcm_ko=$SRPT_ROOT/build/tools/$(uname -r)/srpt_test_ibcm.ko
case " $("$LOGIN_FUZZ" --backends) " in
*" ib "*) ;;
*) skip "login_fuzz built without the IB/CM back end (tests/tools/ib_cm.c)" ;;
esac
[ -f "$ibcm_ko" ] || skip "$ibcm_ko not built"

trap '[ ! -d /sys/module/srpt_test_ibcm ] || rmmod srpt_test_ibcm' EXIT
srpt_load
run modprobe ib_cm
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
[ -d /sys/module/srpt_test_ibcm ] || run insmod "$ibcm_ko"
login_fuzz_campaign ib "${SRPT_CASE_LOGIN_FUZZ_IB:-100}"
run rmmod srpt_test_ibcm
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
