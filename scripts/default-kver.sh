#!/bin/sh
# The default kernel ABI: the one Debian 12's linux-headers-amd64 depends on
# (e.g. 6.1.0-57-amd64). Every script that needs a kernel and was not given
# KVER= uses this one, never the newest headers installed.
set -eu
dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null || true)
kver=$(echo "$dep" | sed -nE 's/^linux-headers-([^ ,]+).*/\1/p')
[ -n "$kver" ] || { echo "default-kver: linux-headers-amd64 is not installed; run scripts/install-deps.sh build" >&2; exit 1; }
echo "$kver"
