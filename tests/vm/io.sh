# Helpers for the data-path I/O cases (45-54): LUNs on null_blk or on a file,
# the initiator with chosen scatter/gather parameters, fio with verification.
# Sourced after lib.sh and srp.sh.
#
# Every fio job verifies what it wrote (crc32c in each block's header), and
# fails the case on any verification error or I/O error. Runs are kept to a
# few seconds under TCG; SRPT_IO_LONG=1 (make check-long) multiplies sizes.

IO_SCALE=1
[ "${SRPT_IO_LONG:-0}" = 1 ] && IO_SCALE=8

# io_nullb [MAX_SECTORS]: null_blk (memory backed) allowing commands of
# MAX_SECTORS 512-byte sectors (default 16384: 8 MiB), as the iblock LUN.
io_nullb() {
	srp_nullb max_sectors="${1:-16384}"
	srp_backstore
}

# io_scatter_free_pages MB: about MB of the guest's free memory left as
# single pages, no two of them adjacent, which the next allocations of
# single pages take first (the page allocator serves the smallest free block
# that fits). A process (IO_SCATTER_PID; io_scatter_end ends it, the runner
# ends it with the case's process group) maps memory without huge pages and
# touches it, 16 MiB at a time until it holds MB of pages of even frame
# number whose odd neighbour (its buddy) it holds too (/proc/self/pagemap;
# at most 8 MB mapped), and only then gives those even pages back: a page
# given back cannot merge with its held buddy, and two pages given back
# always have a held one between them. (Giving back while still mapping
# would hand the next chunk the pages just given back.) The buffers of an
# fio run with --iomem=shm (shared memory: single pages, never huge) are
# then pages no two of which are adjacent, so a direct I/O of N pages is N
# scatter/gather segments however the guest's memory lay before; with
# anonymous buffers and transparent huge pages (always, on Debian's
# kernels) a 1 MiB I/O is often one segment.
IO_SCATTER_OUT=/tmp/srpt-scatter.out
io_scatter_free_pages() {
	rm -f "$IO_SCATTER_OUT"
	python3 - "$1" >"$IO_SCATTER_OUT" 2>&1 <<'PY' &
import ctypes, mmap, signal, struct, sys
page = mmap.PAGESIZE
want = (int(sys.argv[1]) << 20) // page
chunk = (16 << 20) // page
maps, held, mapped = [], {}, 0
def pairs():
    return [p for p in held if p % 2 == 0 and p + 1 in held]
while mapped < 8 * want and (mapped < want or len(pairs()) < want):
    m = mmap.mmap(-1, chunk * page, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    m.madvise(mmap.MADV_NOHUGEPAGE)
    for i in range(chunk):
        m[i * page] = 1
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    with open("/proc/self/pagemap", "rb") as f:
        f.seek(addr // page * 8)
        raw = f.read(chunk * 8)
    for i in range(chunk):
        e = struct.unpack_from("Q", raw, i * 8)[0]
        if e >> 63:
            held[e & ((1 << 55) - 1)] = (m, i)
    maps.append(m)
    mapped += chunk
given = pairs()[:want]
for p in given:
    m, i = held.pop(p)
    m.madvise(mmap.MADV_DONTNEED, i * page, page)
print("ready: %d pages given back of %d mapped, none adjacent" % (len(given), mapped), flush=True)
signal.pause()
PY
	IO_SCATTER_PID=$!
	poll_until 120 grep -q '^ready' "$IO_SCATTER_OUT" ||
		fail "scattered free pages: $(cat "$IO_SCATTER_OUT")"
	log "scattered free pages: $(cat "$IO_SCATTER_OUT")"
}
io_scatter_end() {
	[ -z "${IO_SCATTER_PID:-}" ] || kill "$IO_SCATTER_PID" 2>/dev/null
	IO_SCATTER_PID=
}

# io_fileio MB: a fileio backstore on a file in a tmpfs, as the LUN.
IO_FILE_DIR=/mnt/srpt-lun
io_fileio() {
	local mb=${1:-256}
	mkdir -p "$IO_FILE_DIR"
	mountpoint -q "$IO_FILE_DIR" || run mount -t tmpfs -o size=$((mb + 16))m tmpfs "$IO_FILE_DIR"
	run truncate -s "${mb}M" "$IO_FILE_DIR/lun.img"
	BACKSTORE=/sys/kernel/config/target/core/fileio_0/file
	mkdir -p "$BACKSTORE" || fail "mkdir $BACKSTORE"
	echo "fd_dev_name=$IO_FILE_DIR/lun.img,fd_dev_size=$((mb << 20))" >"$BACKSTORE/control" ||
		fail "fileio control"
	echo 1 >"$BACKSTORE/enable" || fail "fileio enable"
}
io_fileio_cleanup() {
	mountpoint -q "$IO_FILE_DIR" && umount "$IO_FILE_DIR"
	return 0
}

# io_initiator MODULE-PARAMS...: (re)load ib_srp with these parameters.
io_initiator() {
	[ -d /sys/module/ib_srp ] && { rmmod ib_srp || fail "rmmod ib_srp"; }
	run modprobe ib_srp "$@"
	modprobe sd_mod || fail "modprobe sd_mod"
}

# io_disk [ADD-TARGET-OPTIONS]: log in and print the disk; lets it take
# commands as large as the initiator allows, and logs its limits.
io_disk() {
	local dev q
	srp_login "$1" >&2 || fail "add_target failed"
	dev=$(srp_disk) || fail "the initiator shows no LIO disk"
	q=/sys/block/${dev#/dev/}/queue
	cat $q/max_hw_sectors_kb >$q/max_sectors_kb || fail "max_sectors_kb"
	log "disk $dev: max_sectors_kb $(cat $q/max_sectors_kb) max_hw_sectors_kb $(cat $q/max_hw_sectors_kb) max_segments $(cat $q/max_segments)" >&2
	echo "$dev"
}

# io_fio NAME FIO-ARGS...: one fio run with crc32c verification of every
# block written; fails the case on any error. Prints fio's summary lines and
# "NAME: iops=N bw=N KiB/s" for each direction.
io_fio() {
	local name=$1 out=/tmp/fio-$1.json st
	shift
	fio --name="$name" --ioengine=libaio --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --output-format=json --output="$out" "$@"
	st=$?
	python3 - "$out" "$name" <<'PY' || st=1
import json, sys
t = open(sys.argv[1]).read()
d = json.loads(t[t.index("{"):])  # fio may put warnings in front
bad = 0
for j in d["jobs"]:
    if j.get("error", 0):
        print("fio job %s: error %d" % (j["jobname"], j["error"]))
        bad = 1
r = {k: sum(j[k]["io_bytes"] for j in d["jobs"]) for k in ("read", "write")}
iops = {k: sum(j[k]["iops"] for j in d["jobs"]) for k in ("read", "write")}
bw = {k: sum(j[k]["bw"] for j in d["jobs"]) for k in ("read", "write")}
print("# %s: wrote %d MiB (%.0f IOPS, %.0f KiB/s), read back %d MiB verified (%.0f IOPS, %.0f KiB/s)"
      % (sys.argv[2], r["write"] >> 20, iops["write"], bw["write"], r["read"] >> 20,
         iops["read"], bw["read"]))
if r["write"] == 0 or r["read"] < r["write"]:
    print("fio %s: read back less than written: nothing verified" % sys.argv[2])
    bad = 1
sys.exit(bad)
PY
	[ $st -eq 0 ] || { cat "$out" | head -c 4000; fail "fio $name failed (verification or I/O error)"; }
}

# io_dd_verify DEV BS COUNT OFLAG: a random pattern written and read back with
# dd at block size BS (direct or buffered), compared. The device is read and
# written BS at a time, the guest's own files (tmpfs) 64 KiB at a time: one
# 8 MiB write() into tmpfs is one kernel copy with no scheduling point, and
# on the debug kernel with three guests on two cores one can take long
# enough for the soft-lockup detector to report it (dd in
# copy_page_from_iter_atomic under shmem_file_write_iter).
io_dd_verify() {
	local dev=$1 bs=$2 count=$3 flag=$4 t=64k
	run dd if=/dev/urandom of=/tmp/io-pattern ibs="$bs" obs=$t count="$count" status=none
	if [ "$flag" = direct ]; then
		run dd if=/tmp/io-pattern of="$dev" ibs=$t obs="$bs" oflag=direct status=none
		run dd if="$dev" of=/tmp/io-back ibs="$bs" obs=$t count="$count" iflag=direct status=none
	else
		run dd if=/tmp/io-pattern of="$dev" ibs=$t obs="$bs" conv=fsync status=none
		echo 3 >/proc/sys/vm/drop_caches
		run blockdev --flushbufs "$dev"
		run dd if="$dev" of=/tmp/io-back ibs="$bs" obs=$t count="$count" status=none
	fi
	cmp /tmp/io-pattern /tmp/io-back || fail "dd $bs x $count ($flag) read back differs"
	rm -f /tmp/io-pattern /tmp/io-back
}

# io_dd_large DEV: 4 MiB and 8 MiB blocks (four of each), direct and
# buffered, each written with io_dd_verify and read back compared.
io_dd_large() {
	local bs
	for bs in 4M 8M; do
		io_dd_verify "$1" "$bs" 4 direct
		io_dd_verify "$1" "$bs" 4 buffered
		log "$bs direct and buffered verified"
	done
}

# io_mkfs_check DEV: ext4 made, files written, unmounted, fsck -f clean,
# mounted again and the files compared.
io_mkfs_check() {
	local dev=$1 mnt=/mnt/srpt-fs i
	run mkfs.ext4 -q -F "$dev"
	mkdir -p "$mnt"
	run mount "$dev" "$mnt"
	for i in 1 2 3 4; do
		run dd if=/dev/urandom of="$mnt/f$i" bs=1M count=$((4 * IO_SCALE)) status=none
	done
	run mkdir -p "$mnt/dir/sub"
	for i in $(seq 200); do echo "file $i" >"$mnt/dir/sub/s$i"; done
	(cd "$mnt" && md5sum f1 f2 f3 f4 >/tmp/fs.md5)
	run umount "$mnt"
	e2fsck -f -n "$dev" >/tmp/fsck.out 2>&1 || { cat /tmp/fsck.out; fail "fsck -f found errors"; }
	log "fsck -f clean"
	run mount "$dev" "$mnt"
	(cd "$mnt" && md5sum -c --quiet /tmp/fs.md5) || fail "files differ after remount"
	[ "$(ls "$mnt/dir/sub" | wc -l)" -eq 200 ] || fail "small files lost"
	run umount "$mnt"
}
