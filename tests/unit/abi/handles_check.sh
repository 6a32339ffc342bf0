#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Channels and commands cross the C ABI as distinct opaque handles (struct
# srpt_core_chan, struct srpt_core_cmd): passing one where the other is
# expected must not compile, on the shim's side (C, with the kernel's
# -Werror=incompatible-pointer-types) nor on the core's (C++). Compiles
# handle_mixup.c both ways for each MIXUP case: case 0 must compile (so a
# refusal below is about the handles, not a broken snippet), every other
# case must be refused with a pointer-type error. Fails if the ABI goes
# back to void *.
#
#   handles_check.sh CC CXX INCLUDE_DIR
set -u
CC=$1 CXX=$2 INC=$3
SRC=$(dirname "$0")/handle_mixup.c
CASES="1 2 3 4 5 6"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
bad=0

compile() { # lang mixup
	if [ "$1" = c ]; then
		$CC -x c -std=gnu11 -fsyntax-only -Wall -Werror=incompatible-pointer-types \
			-I"$INC" -DMIXUP="$2" "$SRC" >"$log" 2>&1
	else
		$CXX -x c++ -std=gnu++17 -fsyntax-only -Wall -I"$INC" -DMIXUP="$2" \
			"$SRC" >"$log" 2>&1
	fi
}

for lang in c c++; do
	if ! compile $lang 0; then
		echo "abi handles ($lang): the correct uses do not compile:"
		cat "$log"
		bad=1
		continue
	fi
	for m in $CASES; do
		if compile $lang "$m"; then
			echo "abi handles ($lang): mix-up $m compiled; a channel and a command must not be interchangeable"
			bad=1
		elif ! grep -q -e 'incompatible pointer type' -e 'incompatible-pointer-types' \
			-e 'cannot convert' -e 'invalid conversion' "$log"; then
			echo "abi handles ($lang): mix-up $m refused, but not for its pointer type:"
			cat "$log"
			bad=1
		fi
	done
done
[ $bad -eq 0 ] && echo "abi handles: C and C++ refuse a channel for a command and the other way round ($(echo $CASES | wc -w) cases each)"
exit $bad
