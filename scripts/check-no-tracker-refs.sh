#!/bin/bash
# The repository's text names no issue of the tracker, which is not in the
# repository: a reader cannot follow a tracker's number, and the reason it
# stands for belongs in the sentence itself (a comment states the invariant
# and names the test that holds it). Checks every file git tracks but the
# binary fuzz corpus. First proves the check live on a planted line.
# Output: TAP, then "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
pattern='\b[Ii]ssues? #?[0-9]+'
. "$(dirname "$0")/tap.sh"

# refs FILE...: the lines naming an issue, as file:line:text.
refs() { grep -HnE "$pattern" "$@" 2>/dev/null; }

echo "TAP version 13"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf '%s\n' '// Holds under the lock.' '// Fixed in iss''ue 13, defect 7.' >"$scratch/planted.cpp"
printf '%s\n' '// An issue of ordering, 2 of them.' >"$scratch/clean.cpp"
if [ "$(refs "$scratch/planted.cpp" | cut -d: -f2)" = 2 ] && [ -z "$(refs "$scratch/clean.cpp")" ]; then
	result ok "the check finds a planted reference and only it"
else
	result not-ok "the check finds a planted reference and only it"
fi

cd "$here" || exit 1
mapfile -t files < <(git ls-files | grep -v '^tests/fuzz/corpus/')
found=$(refs "${files[@]}")
if [ -z "$found" ]; then
	result ok "no tracked file names an issue (${#files[@]} files)"
else
	echo "$found" | sed 's/^/# /'
	result not-ok "tracked files name an issue ($(echo "$found" | wc -l) lines)"
fi
tap_end
