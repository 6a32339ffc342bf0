#!/bin/sh
# Prints the kernel build directory to build against: $KDIR when set, else
# the headers of $KVER, else those of the default kernel (the ABI Debian 12's
# linux-headers-amd64 points at). Never "the newest headers installed": with
# more than one kernel's headers on the machine that would switch kernels
# silently. The running kernel is irrelevant: build machines do not run
# Debian's kernel.
set -eu
if [ -n "${KDIR:-}" ]; then
	echo "$KDIR"
	exit 0
fi
kver=${KVER:-$("$(dirname "$0")/default-kver.sh")}
d=/usr/src/linux-headers-$kver
[ -f "$d/Module.symvers" ] && echo "$d"
