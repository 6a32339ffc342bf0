#!/bin/bash
# Builds the debug kernel (KASAN, lockdep, kmemleak, ...) once per machine:
# Debian's linux-source-6.12, `defconfig` + `kvm_guest.config` + debug.config
# (this folder), then `make olddefconfig`; every line of the fragment must
# survive the merge, or the build stops and names the ones that did not.
#
# Cache: $SRPT_DEBUG_KERNEL_CACHE (default /var/cache/srpt-cxx/debug-kernel)
# /<key>/, key = hash of the source package version, the fragment and
# $recipe (bump it when a change below alters what is built). A finished build holds
#   src/                 the unpacked source tree
#   build/               the object tree (O=): KDIR for out-of-tree modules
#   tree/boot/vmlinuz-<kver>, tree/lib/modules/<kver>/   what the guest boots
#   kver                 the kernel release string
#   build-seconds        how long the build took
#   .complete            written last
# A second run with the same key prints the cache dir and returns at once.
#
# usage: scripts/debug-kernel/build.sh      prints the cache dir on stdout
#        scripts/debug-kernel/build.sh --cached   the same, but never builds:
#                                         fails when no finished build exists
set -euo pipefail
cached_only=0
[ "${1:-}" != --cached ] || cached_only=1
here=$(cd "$(dirname "$0")" && pwd -P)
cache_root=${SRPT_DEBUG_KERNEL_CACHE:-/var/cache/srpt-cxx/debug-kernel}
srcpkg=linux-source-6.12
recipe=1
log() { echo "debug-kernel: $*" >&2; }
die() { log "error: $*"; exit 1; }

need=()
[ $cached_only = 1 ] ||
for p in $srcpkg gcc-12 make bc bison flex libssl-dev libelf-dev cpio xz-utils kmod rsync; do
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	log "installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends "${need[@]}" >/dev/null 2>&1 || {
		apt-get -o DPkg::Lock::Timeout=900 update -q >/dev/null
		apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends "${need[@]}" >/dev/null
	}
fi

srcver=$(dpkg-query -W -f='${Version}' $srcpkg)
key=$( { echo "$srcpkg $srcver recipe $recipe"; cat "$here/debug.config"; } | sha256sum | cut -c1-16)
dir=$cache_root/$key
if [ -f "$dir/.complete" ]; then
	[ $cached_only = 1 ] || log "cached: $dir ($(cat "$dir/kver"), built in $(cat "$dir/build-seconds") s)"
	echo "$dir"
	exit 0
fi
[ $cached_only = 0 ] || die "no finished build in $dir: run $0 (about an hour on 2 cores)"

mkdir -p "$cache_root"
exec 9>"$cache_root/.lock"
flock 9
if [ -f "$dir/.complete" ]; then echo "$dir"; exit 0; fi

# Stages leave stamps, so a build that was stopped (a session or CI run that
# ended mid-build) resumes where it stopped: Kbuild's own dependency tracking
# makes the rest incremental. The time spent adds up over the runs.
start=$(date +%s)
spent=$(cat "$dir/build-seconds.partial" 2>/dev/null || echo 0)
# A fragment changed since the last build: start from the newest finished
# build of the same source, so that Kbuild rebuilds only what depends on a
# changed option instead of the whole kernel (hours on 2 cores). The copy
# keeps file times; Kbuild's saved commands name the tree by absolute path
# (srctree is absolute for O= builds), so they are rewritten to the new
# one, or every command would differ and everything rebuild. The keys have
# the same length, so nothing else shifts.
seed() {
	local d best= old new
	for d in "$cache_root"/*/; do
		d=${d%/}
		[ "$d" != "$dir" ] && [ -f "$d/.complete" ] || continue
		if [ -f "$d/source" ]; then
			[ "$(cat "$d/source")" = "$srcpkg $srcver" ] || continue
		else
			# Builds from before the source was recorded: the kernel version.
			case $(cat "$d/kver") in "${srcver%%-*}"-*) ;; *) continue ;; esac
		fi
		if [ -z "$best" ] || [ "$d/.complete" -nt "$best/.complete" ]; then best=$d; fi
	done
	[ -n "$best" ] || return 1
	old=$(cd "$best" && pwd -P)
	log "seeding from $old (same source; only what the fragment changes rebuilds)"
	rm -rf "$dir"
	mkdir -p "$dir"
	new=$(cd "$dir" && pwd -P)
	cp -a "$old/src" "$old/build" "$new/"
	grep -rlF --null --include='*.cmd' --include='*.d' --include=Makefile "$old" "$dir/build" |
		while IFS= read -r -d '' f; do
			sed "s#$old/#$new/#g" "$f" >"$f.seed" && touch -r "$f" "$f.seed" && mv "$f.seed" "$f"
		done
	ln -sfn "$new/src" "$new/build/source"
	echo "$srcpkg $srcver" >"$dir/source"
	touch "$dir/.unpacked"
}
if [ ! -f "$dir/.unpacked" ] && [ ! -d "$dir" ]; then
	seed || true
fi
if [ ! -f "$dir/.unpacked" ]; then
	rm -rf "$dir"
	mkdir -p "$dir/src"
	log "unpacking $srcpkg $srcver into $dir/src"
	tarball=$(ls /usr/src/$srcpkg.tar.* | head -n 1)
	tar -xf "$tarball" -C "$dir/src" --strip-components=1
	echo "$srcpkg $srcver" >"$dir/source"
	touch "$dir/.unpacked"
fi

k() { make -C "$dir/src" O="$dir/build" CC=gcc-12 HOSTCC=gcc-12 "$@"; }
if [ ! -f "$dir/.configured" ]; then
	log "configuring: defconfig + kvm_guest.config + debug.config"
	k defconfig >/dev/null
	k kvm_guest.config >/dev/null
	"$dir/src/scripts/kconfig/merge_config.sh" -m -O "$dir/build" "$dir/build/.config" "$here/debug.config" >/dev/null
	k olddefconfig >/dev/null

	# Every fragment line must be in the final config (=n as "is not set").
	missing=()
	while IFS= read -r line; do
		case "$line" in ''|'#'*) continue ;; esac
		opt=${line%%=*} val=${line#*=}
		if [ "$val" = n ]; then
			grep -qE "^# $opt is not set\$|^$opt=n\$" "$dir/build/.config" || ! grep -q "^$opt=" "$dir/build/.config" || missing+=("$line")
		else
			grep -qxF "$line" "$dir/build/.config" || missing+=("$line")
		fi
	done <"$here/debug.config"
	[ ${#missing[@]} -eq 0 ] || die "config lines that did not survive olddefconfig: ${missing[*]}"
	touch "$dir/.configured"
else
	log "resuming the build in $dir ($spent s spent so far)"
fi

jobs=$(nproc)
log "building bzImage and modules with -j$jobs (log: $dir/build.log)"
trap 'echo $((spent + $(date +%s) - start)) >"$dir/build-seconds.partial"' EXIT
k -j"$jobs" bzImage modules >>"$dir/build.log" 2>&1 || { tail -n 40 "$dir/build.log" >&2; die "kernel build failed"; }
kver=$(k -s kernelrelease)
mkdir -p "$dir/tree/boot"
cp "$dir/build/arch/x86/boot/bzImage" "$dir/tree/boot/vmlinuz-$kver"
cp "$dir/build/System.map" "$dir/tree/boot/System.map-$kver"
cp "$dir/build/.config" "$dir/tree/boot/config-$kver"
k INSTALL_MOD_PATH="$dir/tree" modules_install >>"$dir/build.log" 2>&1
# The module tree's build link points at the object tree (KDIR).
ln -sfn "$dir/build" "$dir/tree/lib/modules/$kver/build"
echo "$kver" >"$dir/kver"
trap - EXIT
echo $((spent + $(date +%s) - start)) >"$dir/build-seconds"
rm -f "$dir/build-seconds.partial"
touch "$dir/.complete"
log "built $kver in $(cat "$dir/build-seconds") s: $dir"
echo "$dir"
