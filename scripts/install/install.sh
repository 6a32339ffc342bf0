#!/bin/sh
# `make install` / `make uninstall`: ib_srpt.ko of one kernel into (out of)
# /lib/modules/<abi>/updates/, then depmod for that kernel. depmod searches
# updates/ before the kernel's own directories, so ours wins over the in-tree
# driver (kernel/drivers/infiniband/ulp/srpt/) without touching it; removing
# ours and running depmod again brings the in-tree one back. Nothing else is
# written: no modprobe.d, no blacklist.
#
# usage: install.sh install|uninstall ABI [KO]
#   DESTDIR: a root to install under instead of / (depmod -b; tests use it).
set -eu
op=${1:?usage: install.sh install|uninstall ABI [KO]}
abi=${2:?usage: install.sh install|uninstall ABI [KO]}
root=${DESTDIR:-}
dir=$root/lib/modules/$abi/updates
command -v depmod >/dev/null 2>&1 || PATH=$PATH:/sbin:/usr/sbin

depmod_for() {
	if [ -n "$root" ]; then
		depmod -b "$root" "$abi"
	else
		depmod "$abi"
	fi
}

case $op in
install)
	ko=${3:?install: which ib_srpt.ko}
	[ -f "$ko" ] || { echo "install: $ko not built" >&2; exit 1; }
	# A module built for another kernel would be refused at load time:
	# refuse it here, while the administrator is watching.
	vermagic=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
	[ "$vermagic" = "$abi" ] || {
		echo "install: $ko is for $vermagic, not $abi" >&2
		exit 1
	}
	install -D -m 0644 "$ko" "$dir/ib_srpt.ko"
	depmod_for
	echo "installed $dir/ib_srpt.ko ($(modinfo -F version "$ko")); depmod $abi done"
	;;
uninstall)
	if [ -e "$dir/ib_srpt.ko" ]; then
		rm -f "$dir/ib_srpt.ko"
		rmdir "$dir" 2>/dev/null || true
		depmod_for
		echo "removed $dir/ib_srpt.ko; depmod $abi done"
	else
		echo "uninstall: $dir/ib_srpt.ko is not installed; nothing to do"
	fi
	;;
*)
	echo "usage: install.sh install|uninstall ABI [KO]" >&2
	exit 2
	;;
esac
