#!/bin/sh
# A cached Debian 13 (trixie) chroot for kernels whose headers bookworm cannot
# install (7.3 from trixie-backports needs gcc-14 and glibc >= 2.38).
#
# usage: scripts/kernel/chroot.sh prepare KVER
#          make the chroot (debootstrap, once) and install KVER's headers in it
#        scripts/kernel/chroot.sh run KVER CMD...
#          run CMD inside it, the checkout bind-mounted at its own path
#
# The chroot lives in $SRPT_CHROOT (default /var/cache/srpt-cxx/chroot-trixie)
# and outlives `make clean`: debootstrap takes about 20 minutes on 2 cores.
# Its packages come from the same Debian mirror as the machine's own sources;
# the machine's apt configuration is not touched. Mounts are made in a private
# mount namespace (unshare -m), so none outlives the command.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd -P)
CH=${SRPT_CHROOT:-/var/cache/srpt-cxx/chroot-trixie}
SUITE=trixie
MIRROR=${SRPT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# What every kernel build in the chroot needs.
BASE_PKGS=gcc-14,g++-14,make,libelf-dev,bc,kmod,xz-utils,cpio,dwarves

log() { echo "chroot: $*" >&2; }
die() { echo "chroot: error: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot)"

bootstrap() {
	[ -f "$CH/.srpt-complete" ] && return 0
	command -v debootstrap >/dev/null ||
		apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends debootstrap >/dev/null
	mkdir -p "$(dirname "$CH")"
	exec 8>"$CH.lock"
	flock 8
	[ -f "$CH/.srpt-complete" ] && return 0
	log "debootstrap $SUITE into $CH (about 20 minutes, once)"
	rm -rf "$CH.tmp"
	debootstrap --variant=minbase --keyring="$KEYRING" --include="$BASE_PKGS" \
		"$SUITE" "$CH.tmp" "$MIRROR" >"$CH.log" 2>&1 ||
		die "debootstrap failed, see $CH.log"
	cat >"$CH.tmp/etc/apt/sources.list.d/debian.sources" <<EOS
Types: deb
URIs: $MIRROR
Suites: $SUITE $SUITE-updates $SUITE-backports
Components: main
EOS
	rm -f "$CH.tmp/etc/apt/sources.list"
	chroot "$CH.tmp" apt-get update -q >>"$CH.log" 2>&1 ||
		die "apt-get update in the chroot failed, see $CH.log"
	touch "$CH.tmp/.srpt-complete"
	mv "$CH.tmp" "$CH"
}

# Runs "$@" inside the chroot with /proc (objtool reads it), /dev and the
# checkout mounted.
in_chroot() {
	unshare -m sh -eu -c '
		ch=$1 root=$2; shift 2
		mount --make-rprivate /
		mount -t proc proc "$ch/proc"
		mount --rbind /dev "$ch/dev"
		mkdir -p "$ch$root"
		mount --bind "$root" "$ch$root"
		exec chroot "$ch" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"
	' sh "$CH" "$ROOT" "$@"
}

headers() {
	kver=$1
	[ -f "$CH/usr/src/linux-headers-$kver/Module.symvers" ] && return 0
	log "installing linux-headers-$kver in the chroot"
	in_chroot sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends linux-headers-$kver" \
		>>"$CH.log" 2>&1 || {
		in_chroot apt-get update -q >>"$CH.log" 2>&1
		in_chroot sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends linux-headers-$kver" \
			>>"$CH.log" 2>&1
	} || die "linux-headers-$kver did not install in the chroot, see $CH.log"
}

cmd=${1:-}
[ $# -ge 2 ] || die "usage: $0 prepare KVER | run KVER CMD..."
kver=$2
shift 2
case "$cmd" in
prepare) bootstrap; headers "$kver" ;;
run) bootstrap; headers "$kver"; in_chroot "$@" ;;
*) die "unknown command $cmd" ;;
esac
