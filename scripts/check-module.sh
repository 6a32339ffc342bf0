#!/bin/bash
# Checks a built ib_srpt.ko for what a freestanding C++ kernel module must
# and must not contain. Prints TAP and "N passed, N failed"; exits non-zero
# on any failure.
#
#   scripts/check-module.sh ib_srpt.ko
set -u
ko=${1:?usage: check-module.sh path/to/ib_srpt.ko}
pass=0 fail=0 n=0
ok()     { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "#   $l"; done; }

echo "TAP version 13"
if [ ! -f "$ko" ]; then
	not_ok "module exists" "$ko not found"
	echo "$pass passed, $fail failed"
	exit 1
fi

sections=$(readelf -SW "$ko" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\).*/\1/p')
# The module loader ignores constructors (CONFIG_CONSTRUCTORS is off) and
# there is no unwinder for C++ exceptions in the kernel: any of these means
# code that silently will not run, or a runtime that is not there.
for s in .init_array .fini_array .ctors .dtors .eh_frame .gcc_except_table; do
	if echo "$sections" | grep -qx -- "$s\|\.rela$s"; then
		not_ok "no $s section" "found section $s"
	else
		ok "no $s section"
	fi
done

undef=$(nm -u "$ko" | awk '{print $2}')
bad=$(echo "$undef" | grep -E '^(__cxa_|__gxx_|_Unwind_|atexit$|__dso_handle$|_Zn[wa]m$|_ZSt|_ZNSt)' || true)
if [ -n "$bad" ]; then
	not_ok "no C++ runtime or library symbol undefined" $bad
else
	ok "no C++ runtime or library symbol undefined"
fi

mangled=$(nm "$ko" | awk '$3 ~ /^_ZN4srpt/ {print $3}' | wc -l)
if [ "$mangled" -gt 0 ]; then
	ok "contains compiled C++ ($mangled srpt:: symbols)"
else
	not_ok "contains compiled C++" "no _ZN4srpt symbol in $ko"
fi

# The in-tree driver's three parameters must all be there (more may be).
params=$(modinfo -F parm "$ko" | cut -d: -f1 | sort | tr '\n' ' ')
missing_params=
for p in srp_max_req_size srpt_srq_size srpt_service_guid; do
	case " $params" in *" $p "*) ;; *) missing_params="$missing_params $p" ;; esac
done
if [ -z "$missing_params" ]; then
	ok "module parameters: $params"
else
	not_ok "module parameters" "missing:$missing_params (got: $params)"
fi

name=$(modinfo -F name "$ko")
license=$(modinfo -F license "$ko")
if [ "$name" = ib_srpt ] && [ "$license" = GPL ]; then
	ok "module name ib_srpt, license GPL"
else
	not_ok "module name ib_srpt, license GPL" "name=$name license=$license"
fi

# Every module needs ORC unwind data for reliable stack traces (objtool ran).
if echo "$sections" | grep -qx .orc_unwind; then
	ok "objtool ran (.orc_unwind present)"
else
	not_ok "objtool ran" "no .orc_unwind section"
fi

echo "1..$n"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
