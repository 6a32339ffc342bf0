#!/bin/bash
# The documentation keeps up with the code. Five rules, each one TAP line:
#   1. README.md is under 400 lines: a reader finds what they need in it, and
#      detail that would make it longer belongs next to the code it explains.
#   2. Every module parameter the module registers (module_param*() in
#      src/shim/*.c) is in one of README.md's tables.
#   3. Every configfs attribute the module registers (the attribute arrays
#      the fabric ops hand to the target core, src/shim/fabric.c) is in one
#      of README.md's tables.
#   4. No tracked file names an issue of the tracker:
#      scripts/check-no-tracker-refs.sh of the tree checked, run as it is.
#   5. Every guest case tests/vm/cases/NN-*.sh opens with its header: after
#      the shebang and the runner's directives, "# NN <what it checks>", NN
#      the case's own number: whoever opens a case reads first what it
#      checks, and the cases' headers are the list of cases
#      (tests/vm/README.md, "The cases").
# Rules 2 and 3 read the names from the registrations themselves, not from a
# list kept here, so that a new parameter or attribute without its row in
# README.md fails the check. "In a table" is a line starting with "|", out
# of code blocks, with the name in backquotes: alone (`srp_sq_size`) or as
# the last part of a configfs path (`<tpg>/attrib/srp_sq_size`), the way
# README.md gives an attribute's place. A mention in prose does not count.
#
# Usage:
#   check-docs.sh                 proves the check live on doctored copies of
#                                 the tree (each must fail its rule), then
#                                 checks this checkout: what `make check` runs
#   check-docs.sh [--only 45] [ROOT]  checks the tree at ROOT (default: this
#                                 checkout), all rules or only those given
#   check-docs.sh --list ROOT     the parameters and attributes ROOT's source
#                                 registers, as the check reads them
# Output: TAP, then "N passed, N failed"; the status is 0 only when nothing
# failed. Host only: bash, coreutils, grep, sed and awk; a second or two.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
self=$here/scripts/check-docs.sh
max_lines=400

# registered ROOT: the parameters and configfs attributes ROOT/src/shim/*.c
# registers, one "param NAME" or "attr NAME" a line, and "error TEXT" for
# each registration whose name it cannot tell (a form the reader below does
# not know, which must fail the check rather than drop the name).
#
# The C is read with its comments taken out and its macro definitions apart:
#   - a parameter is the first argument of module_param(), or of any
#     module_param_*() (named, cb, array, string...: all take it first);
#   - CONFIGFS_ATTR(pfx, name) and its _RO, _WO and BIN_ forms define the
#     variable pfx##attr_##name, named "name" in configfs; a variable
#     "struct configfs_attribute v = { .ca_name = "name", ... }" is named so;
#   - a function-like macro whose body uses one of those with its own
#     parameters defines a name at each use of the macro
#     (SRPT_TPG_ATTRIB(srp_sq_size, ...) -> srpt_tpg_attrib_attr_srp_sq_size);
#   - the registered attributes are the entries of the arrays
#     "struct configfs_attribute *a[] = { &v, ..., NULL }" that a
#     .tfc_*_attrs member of the fabric ops names. An array no such member
#     names registers nothing.
registered() {
	local files=("$1"/src/shim/*.c)
	[ -e "${files[0]}" ] || { echo "error no src/shim/*.c under $1"; return; }
	awk '
	# Text of a line without its comments; incom carries /* across lines.
	function uncomment(s,   out, i, j) {
		out = ""
		while (s != "") {
			if (incom) {
				i = index(s, "*/")
				if (!i) return out
				s = substr(s, i + 2); incom = 0; out = out " "
			} else {
				i = index(s, "/*"); j = index(s, "//")
				if (j && (!i || j < i)) return out substr(s, 1, j - 1)
				if (!i) return out s
				out = out substr(s, 1, i - 1) " "; s = substr(s, i + 2); incom = 1
			}
		}
		return out
	}
	function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
	# The arguments of the call "NAME(a, b, ...)" into a[1..n]; returns n.
	function callargs(call, a,   n, i) {
		sub(/^[^(]*\(/, "", call); sub(/\)[^)]*$/, "", call)
		n = split(call, a, ",")
		for (i = 1; i <= n; i++) a[i] = trim(a[i])
		return n
	}
	# What a builtin registration call defines, from its arguments a[]:
	# sets rkind, rpre (configfs variable prefix) and rname; 0 if none.
	function builtin(call, a) {
		sub(/^[^A-Za-z_]/, "", call)
		callargs(call, a)
		if (call ~ /^module_param/) { rkind = "param"; rpre = ""; rname = a[1]; return 1 }
		if (call ~ /^CONFIGFS_/) { rkind = "attr"; rpre = a[1]; rname = a[2]; return 1 }
		return 0
	}
	# Records that variable VAR (or parameter NAME) is defined.
	function define(kind, pre, name) {
		if (kind == "param") { params[++np] = name; return }
		attr[pre "attr_" name] = name
	}
	BEGIN {
		breg = "(^|[^A-Za-z0-9_])(module_param[a-z_]*|CONFIGFS_(BIN_)?ATTR(_RO|_WO)?) ?\\([^()]*\\)"
	}
	FNR == 1 { incom = 0; cont = "" }
	{
		line = uncomment($0)
		if (line ~ /\\[ \t]*$/) { sub(/\\[ \t]*$/, "", line); cont = cont line " "; next }
		line = cont line; cont = ""
		gsub(/[ \t]+/, " ", line)
		if (line ~ /^ ?# ?define [A-Za-z0-9_]+\(/) {
			# A function-like macro: its name, parameters and body.
			sub(/^ ?# ?define /, "", line)
			m = line; sub(/\(.*/, "", m)
			p = line; sub(/^[^(]*\(/, "", p); body = p
			sub(/\).*/, "", p); sub(/^[^)]*\)/, "", body)
			nmp = split(p, mp, ",")
			for (i = 1; i <= nmp; i++) mpos[m, trim(mp[i])] = i
			# Each registration in the body, its arguments as "#k" (the
			# k-th parameter of the macro) or as written.
			while (match(body, breg)) {
				c = substr(body, RSTART, RLENGTH); body = substr(body, RSTART + RLENGTH)
				builtin(c, a)
				n = ++mcount[m]
				mkind[m, n] = rkind
				mpre[m, n] = ((m, rpre) in mpos) ? "#" mpos[m, rpre] : rpre
				mname[m, n] = ((m, rname) in mpos) ? "#" mpos[m, rname] : rname
			}
			next
		}
		if (line ~ /^ ?#/) next
		text = text " " line
	}
	# A macro argument spec ("#k" or as written) at a use with arguments u[].
	function spec(s, u) {
		if (s ~ /^#[0-9]+$/) s = u[substr(s, 2) + 0]
		return s
	}
	END {
		t = text
		while (match(t, breg)) {
			c = substr(t, RSTART, RLENGTH); t = substr(t, RSTART + RLENGTH)
			builtin(c, a)
			define(rkind, rpre, rname)
		}
		for (m in mcount) {
			t = text
			while (match(t, "[^A-Za-z0-9_]" m " ?\\([^()]*\\)")) {
				c = substr(t, RSTART + 1, RLENGTH - 1); t = substr(t, RSTART + RLENGTH)
				callargs(c, u)
				for (n = 1; n <= mcount[m]; n++)
					define(mkind[m, n], spec(mpre[m, n], u), spec(mname[m, n], u))
			}
		}
		t = text
		while (match(t, "struct configfs_attribute [A-Za-z0-9_]+ ?= ?\\{[^}]*\\}")) {
			c = substr(t, RSTART, RLENGTH); t = substr(t, RSTART + RLENGTH)
			v = c; sub(/^struct configfs_attribute /, "", v); sub(/[ =].*/, "", v)
			if (match(c, "\\.ca_name ?= ?\"[^\"]*\"")) {
				nm = substr(c, RSTART, RLENGTH); sub(/^[^"]*"/, "", nm); sub(/"$/, "", nm)
				attr[v] = nm
			}
		}
		t = text
		while (match(t, "struct configfs_attribute ?\\* ?[A-Za-z0-9_]+ ?\\[ ?[A-Za-z0-9_]* ?\\] ?= ?\\{[^}]*\\}")) {
			c = substr(t, RSTART, RLENGTH); t = substr(t, RSTART + RLENGTH)
			v = c; sub(/^struct configfs_attribute ?\* ?/, "", v); sub(/[ \[].*/, "", v)
			e = c; sub(/^[^{]*\{/, "", e); sub(/\}$/, "", e)
			arr[v] = e
		}
		for (i = 1; i <= np; i++) print "param " params[i]
		t = text
		while (match(t, "\\.tfc_[a-z_]+_attrs ?= ?[A-Za-z0-9_]+")) {
			c = substr(t, RSTART, RLENGTH); t = substr(t, RSTART + RLENGTH)
			f = c; sub(/ ?=.*/, "", f); sub(/^\./, "", f)
			v = c; sub(/.*= ?/, "", v)
			if (!(v in arr)) { print "error " f " names " v ", no array of attributes this reader finds"; continue }
			n = split(arr[v], a, ",")
			for (i = 1; i <= n; i++) {
				e = trim(a[i]); sub(/^& ?/, "", e)
				if (e == "" || e == "NULL") continue
				if (e in attr) print "attr " attr[e]
				else print "error " v " (" f ") holds " e ", whose configfs name this reader cannot tell"
			}
		}
	}' "${files[@]}"
}

# table_names README: what stands in backquotes in the table rows of README
# (lines starting with "|", out of ``` blocks), and the last part of each
# such path, one a line.
table_names() {
	awk '
	/^[ \t]*```/ { fence = !fence; next }
	fence || !/^\|/ { next }
	{
		n = split($0, f, "`")
		for (i = 2; i < n; i += 2) {
			w = f[i]; print w
			if (sub(/.*\//, "", w)) print w
		}
	}' "$1"
}

# case_headers ROOT: one line per guest case whose header is not
# "# NN <description>" after the shebang and the runner's directives
# ("# case-timeout: SEC", "# select: named", "# host: WHAT"; the runner
# reads them anywhere, tests/vm/README.md), each directive perhaps with a
# note in parentheses on the lines after it; nothing when all are.
case_headers() {
	local files=("$1"/tests/vm/cases/*.sh)
	[ -e "${files[0]}" ] || { echo "no tests/vm/cases/*.sh under $1"; return; }
	awk '
	function fail(why) { if (!done) print name ": " why; done = 1 }
	FNR == 1 {
		if (NR > 1 && !done) fail("no line after its directives")
		name = FILENAME; sub(/.*\//, "", name)
		num = name; if (!sub(/-.*/, "", num) || num !~ /^[0-9][0-9]+$/) num = ""
		done = 0; note = 0
		if (num == "") fail("its name does not start with its number (NN-...)")
		if (/^#!/) next
	}
	done { next }
	note {
		if (!/^#/) fail("line " FNR ": the note in parentheses does not end")
		else if (/\)[ \t]*$/) note = 0
		next
	}
	/^# (case-timeout|select|host): / { next }
	/^# \(/ { if (!/\)[ \t]*$/) note = 1; next }
	{
		if (index($0, "# " num " ") == 1 && substr($0, length(num) + 4) ~ /[^ \t]/) done = 1
		else fail("line " FNR ": \"" $0 "\" where \"# " num " <what it checks>\" belongs")
	}
	END { if (NR > 0 && !done) fail("no line after its directives") }' "${files[@]}"
}

. "$(dirname "$0")/tap.sh"
# comment TEXT: TEXT as TAP comment lines.
comment() { [ -z "$1" ] || printf '%s\n' "$1" | sed 's/^/# /'; }

# check_tree ROOT RULES: the rules of RULES ("12345", or some of them) on
# the tree at ROOT, one result line each.
check_tree() {
	local root=$1 rules=$2 readme=$1/README.md lines reg names missing bad out rc k
	reg='' names=''
	case $rules in *[23]*)
		reg=$(registered "$root")
		[ ! -f "$readme" ] || names=$(table_names "$readme")
		;;
	esac
	for k in 1 2 3 4 5; do
		case $rules in *$k*) ;; *) continue ;; esac
		case $k in
		1)
			if [ ! -f "$readme" ]; then
				result not-ok "rule 1: README.md is under $max_lines lines: there is no README.md"
				continue
			fi
			lines=$(wc -l <"$readme")
			if [ "$lines" -lt "$max_lines" ]; then
				result ok "rule 1: README.md is under $max_lines lines ($lines)"
			else
				result not-ok "rule 1: README.md is under $max_lines lines: it has $lines"
			fi
			;;
		2 | 3)
			local kind what
			if [ "$k" = 2 ]; then kind=param what="module parameter"; else kind=attr what="configfs attribute"; fi
			bad=$(echo "$reg" | sed -n "s/^error //p")
			local have
			have=$(echo "$reg" | sed -n "s/^$kind //p")
			if [ ! -f "$readme" ]; then
				result not-ok "rule $k: every ${what} is in README.md's tables: there is no README.md"
				continue
			fi
			if [ -z "$have" ]; then
				result not-ok "rule $k: every ${what} is in README.md's tables: found no ${what} registered in src/shim/*.c"
				continue
			fi
			missing=$(printf '%s\n' "$have" | grep -vxF -f <(printf '%s\n' "$names"))
			if [ "$k" = 3 ] && [ -n "$bad" ]; then
				comment "$bad"
				result not-ok "rule 3: every configfs attribute is in README.md's tables: cannot tell the names of some registered attributes"
			elif [ -n "$missing" ]; then
				# shellcheck disable=SC2016  # the backquotes are the text's
				result not-ok "rule $k: every ${what} is in README.md's tables: missing $(printf '%s\n' "$missing" | sed 's/.*/`&`/' | paste -sd ' ')"
			else
				result ok "rule $k: every ${what} is in README.md's tables ($(echo "$have" | wc -l): $(printf '%s\n' "$have" | paste -sd ' '))"
			fi
			;;
		4)
			if [ ! -x "$root/scripts/check-no-tracker-refs.sh" ]; then
				result not-ok "rule 4: no tracked file names an issue: no scripts/check-no-tracker-refs.sh"
				continue
			fi
			out=$("$root/scripts/check-no-tracker-refs.sh" 2>&1)
			rc=$?
			if [ "$rc" -eq 0 ]; then
				result ok "rule 4: no tracked file names an issue (scripts/check-no-tracker-refs.sh)"
			else
				comment "$(printf '%s\n' "$out" | grep -E '^(# |not ok)')"
				result not-ok "rule 4: no tracked file names an issue: scripts/check-no-tracker-refs.sh failed"
			fi
			;;
		5)
			bad=$(case_headers "$root")
			local cases=("$root"/tests/vm/cases/*.sh)
			if [ -z "$bad" ]; then
				result ok "rule 5: every guest case opens with \"# NN <what it checks>\" (${#cases[@]} cases)"
			else
				comment "$bad"
				result not-ok "rule 5: every guest case opens with \"# NN <what it checks>\": $(echo "$bad" | wc -l) do not"
			fi
			;;
		esac
	done
}

# self_test: the reader of registrations on planted source, then the check
# on copies of this tree, one sound (its README.md made of tables of what
# the source registers) and one per rule doctored to break it: each copy must
# fail exactly its rule, with a line naming the rule.
self_test() {
	local scratch t base reg p a out rc fails
	scratch=$(mktemp -d)
	trap 'rm -rf "$scratch"' EXIT

	# Every form of registration the reader knows, and text that must
	# not count: a commented-out call, an array no fabric op names.
	mkdir -p "$scratch/planted/src/shim"
	cat >"$scratch/planted/src/shim/m.c" <<-'EOF'
	static int a_one = 1;
	module_param(a_one, int, 0444);
	module_param_named(a_two, a_two_var, int, 0444);
	module_param_cb(a_three, &ops,
			&var, 0444);
	/* module_param(not_one, int, 0444); */
	// module_param(not_two, int, 0444);
	EOF
	cat >"$scratch/planted/src/shim/f.c" <<-'EOF'
	CONFIGFS_ATTR(x_, b_rw);
	CONFIGFS_ATTR_RO(x_ro_, b_ro);
	static struct configfs_attribute x_attr_b_lit = { .ca_name = "b_lit", .ca_mode = 0444 };
	#define X_ATTRIB(_name, _idx)					\
	static ssize_t x_attrib_##_name##_show(struct config_item *i, char *p) \
	{ return show(i, p, _idx); }					\
	CONFIGFS_ATTR(x_attrib_, _name)
	X_ATTRIB(b_macro, 0);
	CONFIGFS_ATTR(x_, not_three);
	static struct configfs_attribute *x_attrs[] = { &x_attr_b_rw, &x_ro_attr_b_ro, NULL, };
	static struct configfs_attribute *x_more[] = {
		&x_attr_b_lit,
		&x_attrib_attr_b_macro,
		NULL,
	};
	static struct configfs_attribute *x_unused[] = { &x_attr_not_three, NULL };
	static const struct target_core_fabric_ops t = {
		.tfc_wwn_attrs = x_attrs,
		.tfc_tpg_attrib_attrs		= x_more,
	};
	EOF
	reg=$(registered "$scratch/planted" | tr '\n' ' ')
	if [ "$reg" = "param a_one param a_two param a_three attr b_rw attr b_ro attr b_lit attr b_macro " ]; then
		result ok "self-test: the registrations read off planted source, every form and only the registered"
	else
		comment "read: $reg"
		result not-ok "self-test: the registrations read off planted source, every form and only the registered"
	fi

	# The sound copy: what the rules read of this tree, and a README.md
	# of two tables, one row per name (the attributes by their paths),
	# and prose. A git that lists every
	# file stands in for the repository the copies are not, for
	# scripts/check-no-tracker-refs.sh.
	base=$scratch/base
	mkdir -p "$base/src/shim" "$base/tests/vm/cases" "$base/scripts" "$scratch/bin"
	cp "$here"/src/shim/*.c "$base/src/shim/"
	cp "$here"/tests/vm/cases/*.sh "$base/tests/vm/cases/"
	cp "$here/scripts/check-no-tracker-refs.sh" "$here/scripts/tap.sh" "$base/scripts/"
	cat >"$scratch/bin/git" <<-'EOF'
	#!/bin/bash
	[ "$1" = ls-files ] || exit 1
	find . -type f | sed 's|^\./||' | sort
	EOF
	chmod +x "$scratch/bin/git"
	reg=$(registered "$here")
	p=$(echo "$reg" | sed -n 's/^param //p')
	a=$(echo "$reg" | sed -n 's/^attr //p')
	{
		echo "# scratch"
		echo "| Parameter | Meaning |"
		echo "|---|---|"
		for w in $p; do echo "| \`$w\` | a parameter |"; done
		echo
		echo "| Attribute | Meaning |"
		echo "|---|---|"
		for w in $a; do echo "| \`<dir>/$w\` | an attribute |"; done
	} >"$base/README.md"
	# 399 lines, the most rule 1 allows (the number is the rule's, not
	# taken from the check, so that the self-test holds the check to it).
	t=$((399 - $(wc -l <"$base/README.md")))
	yes "Filler prose." | head -n "$t" >>"$base/README.md"

	# expect TREE RULE TEXT [WORD]: starts the check of TREE in the
	# background (the copies are checked at once); verdicts then wants it
	# to have failed rule RULE and only it, with WORD in its output if
	# given; RULE "": to have passed all five.
	local -a e_tree=() e_rule=() e_what=() e_word=()
	expect() {
		local k=${#e_tree[@]}
		e_tree+=("$1") e_rule+=("$2") e_what+=("$3") e_word+=("${4:-}")
		(
			PATH=$scratch/bin:$PATH "$self" "$1" >"$scratch/out.$k" 2>&1
			echo $? >"$scratch/rc.$k"
		) &
	}
	verdicts() {
		local k rule what word out rc fails
		wait
		for k in "${!e_tree[@]}"; do
			rule=${e_rule[k]} what=${e_what[k]} word=${e_word[k]}
			out=$(cat "$scratch/out.$k")
			rc=$(cat "$scratch/rc.$k")
			fails=$(printf '%s\n' "$out" | sed -n 's/^not ok [0-9]* - rule \([0-9]\):.*/\1/p' | tr -d '\n')
			if [ -z "$rule" ] && [ "$rc" -eq 0 ] && [ -z "$fails" ] &&
				[ "$(printf '%s\n' "$out" | grep -c '^ok [0-9]* - rule ')" -eq 5 ]; then
				result ok "self-test: $what"
			elif [ -n "$rule" ] && [ "$rc" -ne 0 ] && [ "$fails" = "$rule" ] &&
				{ [ -z "$word" ] || printf '%s\n' "$out" | grep -q -- "$word"; }; then
				result ok "self-test: $what: $(printf '%s\n' "$out" | grep '^not ok' | sed 's/^not ok [0-9]* - //')"
			else
				comment "$out"
				result not-ok "self-test: $what"
			fi
		done
	}
	# copy NAME: a copy of the sound tree, for doctoring.
	copy() { cp -r "$base" "$scratch/$1"; echo "$scratch/$1"; }
	# fit README: filler lines out until README is 399 lines again, so
	# that a doctored README.md breaks rule 1 only when it means to.
	fit() {
		awk -v x=$(($(wc -l <"$1") - 399)) '/^Filler prose\.$/ && x > 0 { x--; next } 1' "$1" >"$1.fit" &&
			mv "$1.fit" "$1"
	}

	expect "$base" "" "the sound copy (a README.md of 399 lines) passes every rule"

	t=$(copy long)
	echo "One line more." >>"$t/README.md"
	expect "$t" 1 "a README.md of 400 lines fails rule 1" "it has 400"

	t=$(copy param)
	w=$(echo "$p" | head -n 1)
	grep -v "\`$w\`" "$base/README.md" >"$t/README.md"
	echo "Prose names \`$w\`, which is no table row." >>"$t/README.md"
	fit "$t/README.md"
	expect "$t" 2 "a README.md without the row of $w (named in prose) fails rule 2" "\`$w\`"

	t=$(copy attr)
	w=$(echo "$a" | tail -n 1)
	grep -v "/$w\`" "$base/README.md" >"$t/README.md"
	printf '%s\n' '```' "| \`$w\` | in a code block |" '```' "Prose names \`x/$w\`." >>"$t/README.md"
	fit "$t/README.md"
	expect "$t" 3 "a README.md without the row of $w (in a code block, in prose) fails rule 3" "\`$w\`"

	t=$(copy ref)
	echo "Fixed in iss""ue 12." >"$t/notes.md"
	expect "$t" 4 "a file naming an issue fails rule 4" "notes.md"

	t=$(copy header)
	local cs c
	cs=("$t"/tests/vm/cases/*.sh)
	c=${cs[0]##*/}
	sed -i '2,/^[^#]/{/^#/d}' "$t/tests/vm/cases/$c"
	expect "$t" 5 "case $c without its header comment fails rule 5" "$c"

	t=$(copy host)
	cs=("$t"/tests/vm/cases/*.sh)
	c=${cs[0]##*/}
	sed -i '1a # host: packages' "$t/tests/vm/cases/$c"
	expect "$t" "" "case $c with a \"# host:\" directive before its header passes every rule"

	t=$(copy number)
	cs=("$t"/tests/vm/cases/*.sh)
	c=${cs[-1]##*/}
	sed -i "0,/^# ${c%%-*} /s//# 00 /" "$t/tests/vm/cases/$c"
	expect "$t" 5 "case $c whose header gives another number fails rule 5" "$c"

	t=$(copy unreadable)
	sed -i 's/^CONFIGFS_ATTR_RO(\([a-z_]*\), *\([a-z_]*\));/CONFIGFS_ATTR_RO(\1, \2 ## _x);/' "$t/src/shim/fabric.c"
	expect "$t" 3 "an attribute whose name the reader cannot tell fails rule 3"

	verdicts

	rm -rf "$scratch"
	trap - EXIT
}

case ${1:-} in
--list)
	registered "${2:?usage: check-docs.sh --list ROOT}"
	exit
	;;
--only)
	rules=${2:?usage: check-docs.sh --only RULES [ROOT]}
	shift 2
	[ $# -gt 0 ] || set -- "$here"
	;;
*)
	rules=12345
	;;
esac
echo "TAP version 13"
if [ $# -gt 0 ]; then
	echo "# checking $1"
	check_tree "$1" "$rules"
else
	self_test
	echo "# checking $here"
	check_tree "$here" "$rules"
fi
tap_end
