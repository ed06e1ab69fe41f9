#!/usr/bin/env bash
# Build the guest kernel at every patch of the series (bisectability): a git
# worktree of $KSRC at each commit of base..HEAD, built out of tree with the
# same configuration as 'make kernel'. Fails naming the first patch that
# does not build.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

wt=$BUILD/series-wt
out=$BUILD/kbuild-series
git -C "$KSRC" rev-parse -q --verify base >/dev/null || die "no kernel tree: run 'make tree'"
[ -d "$wt" ] || git -C "$KSRC" worktree add -q --detach "$wt" base
n=0
for c in $(git -C "$KSRC" rev-list --reverse base..HEAD); do
	n=$((n + 1))
	subject=$(git -C "$KSRC" log -1 --format=%s "$c")
	git -C "$wt" checkout -q --detach "$c"
	log "series-check: [$n] $subject"
	# Merge the fragment afresh: options a later patch adds must be enabled
	# as soon as their patch is there.
	rm -f "$out/.newtod-config"
	CONFIG_CHECK=warn KSRC=$wt KOUT=$out "$TOP/scripts/kernel.sh" >"$BUILD/series-check.log" 2>&1 ||
		{
			tail -20 "$BUILD/series-check.log" >&2
			die "patch $n ($subject) does not build on its own: see ${BUILD#"$TOP"/}/series-check.log"
		}
done
log "series-check: all $n patches build on their own"
