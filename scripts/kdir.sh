#!/bin/sh
# Prints the kernel build directory to build against: Debian's installed
# linux-headers-<abi>-amd64 (the newest ABI if several), or $KDIR when set.
# The running kernel is irrelevant: build machines do not run Debian's kernel.
set -eu
if [ -n "${KDIR:-}" ]; then
	echo "$KDIR"
	exit 0
fi
ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | while read -r d; do
	[ -f "$d/Module.symvers" ] && echo "$d"
done | tail -n 1
