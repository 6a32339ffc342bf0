#!/bin/bash
# The guest suite of `make vm-check`: every case of tests/vm/cases/ through
# tests/vm/run.sh, split over SHARDS guests booted side by side (default 2,
# env SRPT_VM_SHARDS), because most of a case's time is a TCG guest waiting
# on timers, not computing. Each guest is a complete run.sh (its own boot,
# TAP, per-case log scan and host checks) with output in
# build/vm/runs/suite-K (debug-suite-K on the debug kernel); this prints each shard's TAP in turn and the sum
# as the last line, "N passed, N failed[, N skipped]".
#
# usage: tests/vm/suite.sh [run.sh options]   (no CASE filters: use run.sh)
# Environment: KVER (the guests' kernel, scripts/kernel/kernels),
#   SRPT_VM_CASES="10 41 ..." (only the cases whose number is listed),
#   SRPT_VM_RUNS=NAME (output under build/vm/runs/NAME-K, default suite).
set -uo pipefail
SRPT_ROOT=$(cd "$(dirname "$0")/../.." && pwd -P)
. "$SRPT_ROOT/scripts/vm/common.sh"
shards=${SRPT_VM_SHARDS:-2}
runs=${SRPT_VM_RUNS:-${VM_DEBUG:+debug-}suite}

# The cases of this run, in order; dealt to the shards below.
mapfile -t cases < <(cd "$SRPT_ROOT/tests/vm/cases" && ls [0-9]*.sh | sed 's/\.sh$//')
if [ -n "${SRPT_VM_CASES:-}" ]; then
	want=" $SRPT_VM_CASES "
	kept=()
	for c in "${cases[@]}"; do
		case "$want" in *" ${c%%-*} "*) kept+=("$c") ;; esac
	done
	cases=("${kept[@]}")
else
	kept=()
	for c in "${cases[@]}"; do
		vm_case_named_only "$SRPT_ROOT/tests/vm/cases/$c.sh" || kept+=("$c")
	done
	cases=("${kept[@]}")
fi
[ ${#cases[@]} -gt 0 ] || { echo "suite.sh: no cases" >&2; exit 2; }
# Longest first, each to the shard with the least work so far
# (tests/vm/case-seconds; on the debug kernel case-seconds-debug, since the
# cases do not all slow down alike there); each shard then runs its cases
# in number order.
secs_file=$SRPT_ROOT/tests/vm/case-seconds
[ -z "$VM_DEBUG" ] || secs_file=$SRPT_ROOT/tests/vm/case-seconds-debug
declare -a shard_cases shard_load
for k in $(seq 0 $((shards - 1))); do shard_load[$k]=0; done
while read -r secs c; do
	best=0
	for k in $(seq 1 $((shards - 1))); do
		[ "${shard_load[$k]}" -lt "${shard_load[$best]}" ] && best=$k
	done
	shard_load[$best]=$((shard_load[best] + secs))
	shard_cases[$best]="${shard_cases[$best]:-} $c"
done < <(declare -A secs_of
	while read -r num secs _; do
		[[ $num == \#* ]] || secs_of[$num]=$secs
	done <"$secs_file"
	for c in "${cases[@]}"; do echo "${secs_of[${c%%-*}]:-60} $c"; done |
		sort -k1,1nr -k2,2)
for k in "${!shard_cases[@]}"; do
	# shellcheck disable=SC2086  # one name per line, on purpose
	shard_cases[$k]=$(printf "%s\n" ${shard_cases[$k]} | sort | tr "\n" " ")
done

# run.sh builds the tools and prepares the kernel; do it once, up front, so
# the shards don't race on it.
"$SRPT_ROOT/scripts/install-deps.sh" vm || exit 1
"$SRPT_ROOT/scripts/vm/prepare.sh" || exit 1
make -s --no-print-directory -C "$SRPT_ROOT" tools >/dev/null || exit 1
case_files=()
for c in "${cases[@]}"; do case_files+=("$SRPT_ROOT/tests/vm/cases/$c.sh"); done
vm_host_prepare "${case_files[@]}"

pids=()
for k in $(seq 0 $((shards - 1))); do
	[ -n "${shard_cases[$k]:-}" ] || continue
	out=$SRPT_ROOT/build/vm/runs/$runs-$((k + 1))
	mkdir -p "$out"
	# shellcheck disable=SC2086  # the case list splits on purpose
	# Each guest runs half the suite; the limits are run.sh's defaults
	# scaled for that (options given to suite.sh come later and win).
	# The guest's limit bounds a hang (each case has its own inside), and
	# it lies above a shard's time on a loaded host too: there (a
	# clean-clone make check beside a check-kernels run) a shard takes
	# about half as long again as on a quiet one.
	SRPT_VM_SKIP_PREPARE=1 "$SRPT_ROOT/tests/vm/run.sh" --out "$out" \
		--timeout 3000 --case-timeout 480 "$@" ${shard_cases[$k]} \
		>"$out.tap" 2>&1 &
	pids+=("$!:$out")
done

passed=0 failed=0 skipped=0
for entry in "${pids[@]}"; do
	pid=${entry%%:*}
	out=${entry#*:}
	wait "$pid"
	rc=$?
	echo "# ---- shard ${out##*/} (exit $rc)"
	cat "$out.tap"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out.tap" | tail -n 1)
	if [ -z "$line" ]; then
		echo "# shard ${out##*/} printed no summary: counted as 1 failure"
		failed=$((failed + 1))
		continue
	fi
	p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
	f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	s=$(echo "$line" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p')
	[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || f=1
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
done
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
