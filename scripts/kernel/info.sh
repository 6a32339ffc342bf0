#!/bin/sh
# Looks a kernel up in scripts/kernel/kernels.
#
# usage: info.sh KVER FIELD     KVER: a name (6.12) or an ABI (6.12.117+deb12-amd64),
#                               empty for the default kernel
#        info.sh --names        the names, in order
# FIELD: abi, name, suite, build (host|chroot), cxx, image (package name).
# A kernel missing from the table is built on the host with g++-12 (as the
# default one), its headers and image named after its ABI.
set -eu
here=$(cd "$(dirname "$0")" && pwd -P)
table=$here/kernels
# The default ABI, installing linux-headers-amd64 (which names it) on a
# fresh machine; asked only when needed.
default_abi() {
	"$here/../default-kver.sh" 2>/dev/null && return
	env -u KVER "$here/../install-deps.sh" build >&2
	"$here/../default-kver.sh"
}

if [ "${1:-}" = --names ]; then
	awk '!/^#/ && NF { print $1 }' "$table"
	exit 0
fi
[ $# -eq 2 ] || { echo "usage: $0 KVER FIELD | --names" >&2; exit 2; }
want=$1
field=$2
uses_default=$(awk -v w="$want" '!/^#/ && NF && $2 == "default" && ($1 == w || w == "") { print 1 }' "$table")
default=
if [ -n "$uses_default" ] || [ -z "$want" ] || [ "$want" = "${want%-amd64}-amd64" ]; then
	default=$(default_abi)
fi
want=${want:-$default}
line=$(awk -v w="$want" -v d="$default" '
	!/^#/ && NF { abi = ($2 == "default") ? d : $2
		if ($1 == w || abi == w) { $2 = abi; print; exit } }' "$table")
[ -n "$line" ] || line="$want $want bookworm host g++-12 linux-image-ABI"
# shellcheck disable=SC2086  # the table's fields
set -- $line
case "$field" in
name) echo "$1" ;;
abi) echo "$2" ;;
suite) echo "$3" ;;
build) echo "$4" ;;
cxx) echo "$5" ;;
image) echo "$6" | sed "s/ABI/$2/" ;;
*) echo "info.sh: unknown field $field" >&2; exit 2 ;;
esac
