#!/bin/sh
# Prints the kernel build directory to build against: Debian's installed
# linux-headers-<abi>-amd64 (the newest if several). The running kernel is
# irrelevant: build machines do not run Debian's kernel.
set -eu
best=
for d in /usr/src/linux-headers-*-amd64; do
	[ -f "$d/Module.symvers" ] && best=$d
done
[ -n "$best" ] || exit 0
echo "$best"
