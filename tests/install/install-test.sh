#!/bin/bash
# make install / make uninstall into a scratch root (DESTDIR) that also holds
# an in-tree ib_srpt.ko: after install, modinfo (as modprobe resolves the
# name) must name ours under updates/ with our version; installing a module
# built for another kernel must be refused; after uninstall the in-tree one
# is what the name resolves to again, and nothing of ours is left.
#
# usage: tests/install/install-test.sh ABI KO
set -u
abi=${1:?usage: install-test.sh ABI KO}
ko=${2:?usage: install-test.sh ABI KO}
here=$(cd "$(dirname "$0")/../.." && pwd -P)
PATH=$PATH:/sbin:/usr/sbin
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
# shellcheck source=lib.sh
. "$here/tests/install/lib.sh"
resolve() { modinfo -b "$root" -k "$abi" -F filename ib_srpt 2>/dev/null; }

[ -f "$ko" ] || { echo "not ok - $ko not built"; echo "0 passed, 1 failed"; exit 1; }
# The stand-in for the in-tree driver: any module named ib_srpt at the
# in-tree path (depmod ranks by directory, not by contents).
intree=$root/lib/modules/$abi/kernel/drivers/infiniband/ulp/srpt/ib_srpt.ko
install -D -m 0644 "$ko" "$intree"
# What a kernel package installs beside its modules (depmod warns without).
for f in modules.order modules.builtin modules.builtin.modinfo; do
	: >"$root/lib/modules/$abi/$f"
done
depmod -b "$root" "$abi"
check "before install the name resolves to the in-tree path" "$intree" "$(resolve)"

DESTDIR=$root "$here/scripts/install/install.sh" install "$abi" "$ko" >/dev/null
check "after install the name resolves to updates/" "$root/lib/modules/$abi/updates/ib_srpt.ko" "$(resolve)"
check "the installed module carries our version" "$(modinfo -F version "$ko")" \
	"$(modinfo -b "$root" -k "$abi" -F version ib_srpt 2>/dev/null)"
want_version=$("$here/scripts/install/version.sh" --release)
case $(modinfo -F version "$ko") in
"$want_version"*) ok "MODULE_VERSION starts with the release $want_version" ;;
*) nok "MODULE_VERSION starts with the release $want_version: $(modinfo -F version "$ko")" ;;
esac

out=$(DESTDIR=$root "$here/scripts/install/install.sh" install 0.0.0-other "$ko" 2>&1)
rc=$?
check "a module for another kernel is refused" "1 yes" \
	"$rc $([ -e "$root/lib/modules/0.0.0-other/updates/ib_srpt.ko" ] && echo no || echo yes)"
case $out in *"not 0.0.0-other"*) ok "the refusal says why" ;;
*) nok "the refusal says why: $out" ;; esac

DESTDIR=$root "$here/scripts/install/install.sh" uninstall "$abi" >/dev/null
check "after uninstall the name resolves to the in-tree path again" "$intree" "$(resolve)"
check "uninstall leaves nothing of ours" "" "$(find "$root/lib/modules/$abi" -path '*updates*' 2>/dev/null)"
check "a second uninstall is a no-op" 0 "$(DESTDIR=$root "$here/scripts/install/install.sh" uninstall "$abi" >/dev/null; echo $?)"

summary
