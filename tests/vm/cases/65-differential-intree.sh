#!/bin/bash
# case-timeout: 600
# 65 What a user or a script can observe without I/O, compared with the
# in-tree driver in the same boot: Debian's ib_srpt.ko and the module under
# test are loaded in turn and given the same configuration (a GUID-named
# target port with an ACL by address, a GID-named one with an ACL by
# initiator port id, each with a LUN, enabled, the RDMA/CM listener on),
# and each gives a record of:
#   param    every module parameter: name, mode, value, and its modinfo type;
#   cfs      every configfs directory, file and link under target/srpt with
#            its mode (links: their target), every readable file's value;
#   login    the SRP_LOGIN_RSP (or reject reason) of an ib_srp-like login
#            and of a minimal one (64-byte IUs, direct descriptors only),
#            and the reject reason of each row of the login check table
#            an initiator can provoke.
# The records must differ by exactly the lines tests/vm/intree-differences
# lists, each with the row of README.md's "Differences from the in-tree
# driver" that gives its reason: a difference not listed fails the case,
# and so does a listed one that no longer shows (the list says what is
# true). The comparison is first shown to fail on a record with one line
# planted, so that a comparison that cannot fail is caught.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/hostile.sh"

OURS=$SRPT_MODULE
LIST=$SRPT_ROOT/tests/vm/intree-differences
srpt_is_intree && skip "the module under test is the in-tree driver"
[ -r "$LIST" ] || fail "missing $LIST"

intree_module() {
	local f
	f=$(modinfo -n ib_srpt 2>/dev/null) || return 1
	case $f in
	*.xz) xz -dc "$f" >/tmp/ib_srpt-intree.ko || return 1; echo /tmp/ib_srpt-intree.ko ;;
	*.zst) zstd -qdc "$f" >/tmp/ib_srpt-intree.ko || return 1; echo /tmp/ib_srpt-intree.ko ;;
	*) echo "$f" ;;
	esac
}
INTREE=$(intree_module) || skip "this kernel has no in-tree ib_srpt"

# record_params: param lines of the loaded module; types from modinfo.
record_params() {
	local p
	for p in /sys/module/ib_srpt/parameters/*; do
		echo "param ${p##*/} mode $(stat -c %a "$p") value $(cat "$p" 2>&1)"
	done
	modinfo -F parmtype "$SRPT_MODULE" | sed 's/^/param type /'
}
# record_cfs: every object under target/srpt, its kind and mode (links:
# their target), every readable file's value; this boot's port names and
# port id replaced by their forms. One process: a fork per file would take
# minutes under TCG.
record_cfs() {
	python3 - "$SRPT_CFS" "$(port_gid_name)" "$(port_guid_name)" "0x$(ti_initiator_port_id)" <<'PY'
import os, re, stat, sys
root, gid, guid, iid = sys.argv[1:5]
# The target core's boot-wide indices and creation times: they count
# devices and ports made since boot, whichever driver made them.
BOOT_WIDE = {"dev", "inst", "indx", "port_auth_indx", "creation_time", "role"}
def generic(s):
    return s.replace(gid, "<gid-port>").replace(guid, "<guid-port>").replace(iid, "<port-id>")
out = []
for d, dirs, files in os.walk(root):
    for n in dirs + files:
        p = os.path.join(d, n)
        rel = generic(os.path.relpath(p, root))
        st = os.lstat(p)
        mode = "%o" % stat.S_IMODE(st.st_mode)
        if stat.S_ISLNK(st.st_mode):
            t = os.readlink(p)
            out.append("cfs link %s -> %s" % (rel, generic(t[t.find("/target/") + 8:] if "/target/" in t else t)))
        elif stat.S_ISDIR(st.st_mode):
            out.append("cfs dir %s %s" % (rel, mode))
        else:
            out.append("cfs file %s %s" % (rel, mode))
            if st.st_mode & 0o400:
                try:
                    with open(p, "rb") as f:
                        v = f.read(4096).decode("utf-8", "replace")
                    v = v.rstrip("\n").replace("\n", "|")
                except OSError as e:
                    v = "error " + os.strerror(e.errno)
                if "/statistics/" in rel and n in BOOT_WIDE:
                    v = re.sub(r"[0-9]+", "<n>", v)
                out.append("cfs value %s = %s" % (rel, generic(v)))
for line in sorted(out):
    print(line)
PY
}
# record_logins: the wire answers (the request tag is the tool's constant).
record_logins() {
	local tid iid t line
	tid=$(ti_target_port_id)
	iid=$(ti_initiator_port_id)
	login_line "ib_srp-like" --login "$iid" "$tid"
	login_line "minimal" --login "$iid" "$tid" --it-iu-len 64 --buf-fmt 2
	login_line "short private data" --req 0000000000000000
	login_line "bad opcode" --login "$iid" "$tid" --opcode 0x03
	login_line "IU too small" --login "$iid" "$tid" --it-iu-len 63
	login_line "IU too large" --login "$iid" "$tid" --it-iu-len 0x100000
	login_line "no descriptor format" --login "$iid" "$tid" --buf-fmt 0
	login_line "foreign target port" --login "$iid" "0011223344556677$(srp_node_guid)"
	for t in "$SRPT_CFS"/*/tpgt_1; do run sh -c "echo 0 > $t/enable"; done
	login_line "TPG disabled" --login "$iid" "$tid"
	for t in "$SRPT_CFS"/*/tpgt_1; do run sh -c "echo 1 > $t/enable"; done
	# Port id 7 has no ACL under the GID-named port; the ACL by address
	# goes meanwhile.
	ti_acl_del rdma
	login_line "no ACL" --login "$(ti_initiator_port_id 7)" "$tid"
	ti_acl_add rdma
}
# login_line LABEL ARGS...: one login's result, reason and answer.
login_line() {
	local label=$1 out line priv
	shift
	out=$(ti rdma "$@" --timeout-ms 10000)
	line=$(echo "$out" | grep '^login=0 ' | head -n 1)
	echo "# $label: $line" >&2
	[ -n "$line" ] || fail "$label: no result line: $out"
	priv=$(ti_field "$line" priv)
	echo "login $label result $(ti_field "$line" result) reason $(ti_field "$line" reason) priv $priv"
	sleep 0.5  # the channel's disconnect, before the next login
}

# record MODULE OUT: load, configure, record, unload.
record() {
	SRPT_MODULE=$1
	srpt_load
	srp_target "$(port_guid_name)" "$VETH0_IP"
	local g=$SRPT_CFS/$(port_gid_name)/tpgt_1
	run mkdir -p "$g/lun/lun_0"
	run ln -s "$BACKSTORE" "$g/lun/lun_0/nullb"
	run mkdir -p "$g/acls/0x$(ti_initiator_port_id)/lun_0"
	run ln -s "$g/lun/lun_0" "$g/acls/0x$(ti_initiator_port_id)/lun_0/lun_0"
	run sh -c "echo 1 > $g/enable"
	log "recording $1: parameters" >&2
	record_params >"$2"
	log "recording $1: configfs" >&2
	record_cfs >>"$2"
	log "recording $1: logins" >&2
	record_logins >>"$2"
	srpt_unload || fail "unloading $1 failed"
	SRPT_MODULE=$OURS
}

# differences A B: the lines of B not in A as "+ LINE", of A not in B as
# "- LINE", sorted.
differences() {
	diff <(sort "$1") <(sort "$2") | sed -n -e 's/^> /+ /p' -e 's/^< /- /p' | sort
}
# check_differences A B: the differences are exactly the list's; prints
# what is wrong and returns 1 otherwise.
check_differences() {
	local want got st=0
	want=$(grep -v -e '^#' -e '^$' "$LIST" | cut -f1 | sort)
	got=$(differences "$1" "$2")
	while IFS= read -r l; do
		[ -n "$l" ] || continue
		echo "$want" | grep -qxF -- "$l" || { echo "not in the list: $l"; st=1; }
	done <<<"$got"
	while IFS= read -r l; do
		[ -n "$l" ] || continue
		echo "$got" | grep -qxF -- "$l" || { echo "listed, not seen: $l"; st=1; }
	done <<<"$want"
	return $st
}


record "$INTREE" /tmp/65-intree
record "$OURS" /tmp/65-ours
cp /tmp/65-intree /tmp/65-ours "$SRPT_VM_OUT/" 2>/dev/null
log "in-tree: $(wc -l </tmp/65-intree) lines, ours: $(wc -l </tmp/65-ours) lines"

# Planted: one more line in our record must fail the comparison.
{ cat /tmp/65-ours; echo "param planted mode 444 value 1"; } >/tmp/65-planted
if out=$(check_differences /tmp/65-intree /tmp/65-planted); then
	fail "a planted difference passed the comparison"
fi
echo "$out" | grep -qxF "not in the list: + param planted mode 444 value 1" ||
	fail "the planted difference was not the one reported: $out"
log "planted: $out"

# Every listed difference names its row of README.md's table.
while IFS=$'\t' read -r line row; do
	case $line in '' | '#'*) continue ;; esac
	[ -n "$row" ] || fail "no README row named for: $line"
	grep -qF -- "$row" "$SRPT_ROOT/README.md" || fail "README.md has no row '$row' (for: $line)"
done <"$LIST"

if ! out=$(check_differences /tmp/65-intree /tmp/65-ours); then
	echo "$out"
	fail "the observable differences from the in-tree driver are not the listed ones"
fi
log "the records differ by the $(grep -cv -e '^#' -e '^$' "$LIST") listed lines"
srp_cleanup
exit 0
