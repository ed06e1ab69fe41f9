#!/usr/bin/env bash
# 'make test' in the guest: one boot per line of guest/boots.list, each
# running its tests from guest/tests.list, with the skips guest/skips.list
# expects of it; KUnit is counted from the first boot's log, and the suites
# of guest/kunit.suites pinned. Ends with the total "N passed, N failed[, N skipped]" and a
# non-zero status if any boot failed.
# Usage: test.sh [TIMEOUT_PER_BOOT]   (ONLY=NAME runs one boot)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tmo=${1:-900}
"$TOP/scripts/check-lists.sh"
passed=0 failed=0 skipped=0 bad=() first=1
while read -r name params; do
	case "$name" in '' | '#'*) continue ;; esac
	if [ -n "${ONLY:-}" ] && [ "$ONLY" != "$name" ]; then
		continue
	fi
	# the skips this boot must show (guest/skips.list), and no others
	skips=$(awk -v b="$name" '/^[ \t]*(#|$)/ { next } $1 == b { printf "%s ", $2 }' "$TOP/guest/skips.list")
	opts=(--tap --expect-skips "$skips")
	[ "$first" = 1 ] && opts+=(--kunit --kunit-suites "$TOP/guest/kunit.suites")
	first=0
	echo "== boot $name${params:+ ($params)}"
	rc=0
	out=$(APPEND="newtod.boot=$name $params ${APPEND:-}" \
		"$TOP/scripts/qemu.sh" --job test "${opts[@]}" --name "test-$name" --timeout "$tmo" 2>&1) || rc=$?
	printf '%s\n' "$out" | grep -v -E '^>>> qemu: booting' || true
	counts=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1 || true)
	[ -n "$counts" ] || counts="0 passed, 1 failed"
	read -r p _ f _ s _ <<<"${counts//,/}"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
	[ "$rc" = 0 ] || bad+=("$name")
done <"$TOP/guest/boots.list"

if [ "$first" = 1 ]; then
	bad+=("${ONLY:-(none)}")
	echo "ERROR: no boot ran: ONLY='${ONLY:-}' names none of $(awk '/^[ \t]*(#|$)/ { next } { printf "%s ", $1 }' "$TOP/guest/boots.list")(guest/boots.list)" >&2
fi
[ ${#bad[@]} -eq 0 ] || printf 'FAILED boots: %s (logs: build/results/test-NAME-serial.log and test-NAME-results.txt)\n' "${bad[*]}" >&2
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ ${#bad[@]} -eq 0 ] && [ "$failed" = 0 ]
