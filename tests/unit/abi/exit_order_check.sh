#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The shim's module exit (src/shim/module.c, srpt_cleanup_module) stops the
# RDMA/CM listener before it unregisters the IB client: a REQ on that
# listener finds its device by the IB client's id (ib_get_client_data()),
# which ib_unregister_client() gives back for another client to reuse. The
# in-tree driver destroys its listener first too. This check reads the
# exit function and fails when the stop is missing or comes later.
#
#   exit_order_check.sh MODULE_C
set -u
SRC=$1
body=$(sed -n '/^static void __exit srpt_cleanup_module(void)$/,/^}$/p' "$SRC")
if [ -z "$body" ]; then
	echo "exit order: srpt_cleanup_module() not found in $SRC"
	exit 1
fi
line_of() {
	printf '%s\n' "$body" | grep -n "^[[:space:]]*$1();" | head -n 1 | cut -d: -f1
}
stop=$(line_of srpt_core_stop_rdma_cm)
client=$(line_of srpt_shim_ib_client_unregister)
if [ -z "$client" ]; then
	echo "exit order: srpt_cleanup_module() does not call srpt_shim_ib_client_unregister()"
	exit 1
fi
if [ -z "$stop" ]; then
	echo "exit order: srpt_cleanup_module() does not call srpt_core_stop_rdma_cm()"
	exit 1
fi
if [ "$stop" -gt "$client" ]; then
	echo "exit order: srpt_core_stop_rdma_cm() comes after srpt_shim_ib_client_unregister()"
	exit 1
fi
exit 0
