#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Live checks of the harness: every way a run can go wrong must make it exit
# non-zero, and 'make run' must return the guest command's status.
#   - a failing guest test         (newtod.selftest=fail)
#   - a guest kernel panic         (newtod.selftest=panic: init exits)
#   - a guest that hangs           (newtod.selftest=hang, 60 s timeout),
#     and one left in S3: the timeout says which (QEMU's VM status)
#   - a patch that does not apply  (a bad patch in a scratch series)
#   - make run CMD='cat /proc/version' -> 0;  CMD=false -> non-zero
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

n=0 fails=0
expect() { # expect WANT(0|nonzero) NAME CMD...
	local want=$1 name=$2 rc=0
	shift 2
	"$@" >"$BUILD/harness-check.log" 2>&1 || rc=$?
	n=$((n + 1))
	if { [ "$want" = 0 ] && [ "$rc" = 0 ]; } || { [ "$want" != 0 ] && [ "$rc" != 0 ]; }; then
		echo "ok $n $name (exit $rc)"
	else
		fails=$((fails + 1))
		echo "not ok $n $name (exit $rc, wanted $want)"
	fi
	grep -E 'FAIL:|ERROR:|passed,|Linux version|not ok' "$BUILD/harness-check.log" | head -4 | sed 's/^/# /' || true
}

echo "TAP version 13"
expect nonzero "failing guest test fails make test" \
	env APPEND=newtod.selftest=fail "$TOP/scripts/qemu.sh" --job test --tap --kunit --name hc-fail --timeout 600
expect nonzero "guest kernel panic fails the run" \
	env APPEND=newtod.selftest=panic "$TOP/scripts/qemu.sh" --job test --tap --kunit --name hc-panic --timeout 300
expect nonzero "hung guest is stopped by the timeout and fails" \
	env APPEND=newtod.selftest=hang "$TOP/scripts/qemu.sh" --job test --tap --kunit --name hc-hang --timeout 60
said() { # said NAME REGEX: the last expect's output says REGEX
	n=$((n + 1))
	if grep -qE "$2" "$BUILD/harness-check.log"; then
		echo "ok $n $1"
	else
		fails=$((fails + 1))
		echo "not ok $n $1 (no line matching '$2' in build/harness-check.log)"
	fi
}
said "the timeout says the hung guest was running (hung or busy)" \
	'VM status: running: the guest was hung or busy'
expect nonzero "a guest left in S3 with no wake alarm is stopped by the timeout and fails" \
	"$TOP/scripts/qemu.sh" --job run --cmd 'echo mem > /sys/power/state' --name hc-s3 --timeout 60
said "the timeout says that guest was in S3" \
	'VM status: .*suspended.*: the guest was in S3 and no wake event came'
expect 0 "make run CMD='cat /proc/version' returns 0" \
	"$TOP/scripts/qemu.sh" --job run --cmd 'cat /proc/version' --name hc-run-ok --timeout 300
expect nonzero "make run CMD=false returns non-zero" \
	"$TOP/scripts/qemu.sh" --job run --cmd false --name hc-run-false --timeout 300

# A series with a patch that cannot apply, on a scratch clone of the tree.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
git clone -q --shared --no-checkout "$KSRC" "$scratch/linux"
git -C "$scratch/linux" tag -f base "$(git -C "$KSRC" rev-parse base)" >/dev/null
git -C "$scratch/linux" checkout -q base
mkdir -p "$scratch/patches"
cat >"$scratch/patches/0001-bad.patch" <<'PATCH'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Harness Check <harness@localhost>
Subject: [PATCH] a patch whose context is not in the tree

---
 kernel/time/timekeeping.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/kernel/time/timekeeping.c b/kernel/time/timekeeping.c
--- a/kernel/time/timekeeping.c
+++ b/kernel/time/timekeeping.c
@@ -1,3 +1,3 @@
 this line is not in timekeeping.c
-and neither is this one
+so the hunk cannot apply
 nor this
PATCH
echo "old $(git -C "$scratch/linux" rev-parse HEAD)" >"$scratch/linux/.git/newtod-series"
expect nonzero "a patch that does not apply fails, naming the patch" \
	env KSRC="$scratch/linux" PATCHDIR="$scratch/patches" "$TOP/scripts/tree.sh"
if ! grep -q '0001-bad.patch' "$BUILD/harness-check.log" || ! grep -q 'timekeeping.c:1' "$BUILD/harness-check.log"; then
	fails=$((fails + 1))
	echo "# the failure did not name the patch and the failing hunk"
fi

echo "1..$n"
[ "$fails" = 0 ] || die "harness-check: $fails check(s) failed"
log "harness-check: all $n checks behaved"
