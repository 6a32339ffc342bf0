#!/bin/sh
# Prints the flags of the kernel's C command line that $CXX accepts as C++.
#
# usage: cxx-flags.sh CXX FLAG...
#
# Kernels keep adding C-only options (-Wno-override-init since about 6.10,
# -Wmissing-prototypes...), which g++ refuses ("valid for C/ObjC but not for
# C++") and -Werror makes fatal. Rather than keep a list of them, ask the
# compiler: it names every option it refuses, all in one run. Options it
# accepts stay, so C++ objects keep the ABI-relevant ones (code model, red
# zone, retpolines, stack protector, fentry). Exits non-zero, printing
# nothing, when the remaining flags still do not compile an empty file.
set -eu
cxx=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/empty.cpp"

flags=$*
i=0
while ! "$cxx" $flags -Werror -c -o "$tmp/empty.o" "$tmp/empty.cpp" >"$tmp/log" 2>&1; do
	i=$((i + 1))
	# GCC quotes the option it refuses: 'X' or with Unicode quotes.
	bad=$(sed -nE \
		-e "s/.*command-line option [‘'\"]([^’'\"]+)[’'\"] is valid for .* but not for C\+\+.*/\1/p" \
		-e "s/.*[‘'\"]-Werror=[’'\"] argument [‘'\"]([^’'\"]+)[’'\"] is not valid for C\+\+.*/\1/p" \
		-e "s/.*unrecognized command-line option [‘'\"]([^’'\"]+)[’'\"].*/\1/p" \
		"$tmp/log" | sort -u)
	if [ -z "$bad" ] || [ "$i" -gt 8 ]; then
		echo "cxx-flags: $cxx refuses the kernel's flags for another reason:" >&2
		cat "$tmp/log" >&2
		exit 1
	fi
	kept=
	for f in $flags; do
		drop=
		for b in $bad; do
			[ "$f" = "$b" ] && drop=1 && break
		done
		[ -n "$drop" ] || kept="$kept $f"
	done
	flags=$kept
done
echo $flags
