#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest kernel at every patch of the series (bisectability): a git
# worktree of $KSRC at each commit of base..HEAD, built out of tree with the
# same configuration as 'make kernel' (KARCH=i386 and FRAGMENTS: as 'make
# kernel-i386', in its own worktree and output directory). Fails naming the
# first patch that does not build. FROM=N starts at patch N (to go on after
# an interrupted run: the patches before it were built then). A patch that
# changes only files no kernel build reads (Documentation/, tools/,
# MAINTAINERS) leaves the tree the build sees as the patch before it left
# it: it is named and not built again.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

wt=$BUILD/series-wt
out=$BUILD/kbuild-series
slog=$BUILD/series-check.log
if [ "$KARCH" != x86_64 ]; then
	case " ${FRAGMENTS:-} " in
	*"/kernel-$KARCH.config "*) ;;
	*) die "series-check for KARCH=$KARCH needs guest/kernel-$KARCH.config in FRAGMENTS: run 'make series-check-$KARCH'" ;;
	esac
	wt=$BUILD/series-wt-$KARCH out=$BUILD/kbuild-series-$KARCH slog=$BUILD/series-check-$KARCH.log
fi
git -C "$KSRC" rev-parse -q --verify base >/dev/null || die "no kernel tree: run 'make tree'"
[ -d "$wt" ] || git -C "$KSRC" worktree add -q --detach "$wt" base
from=${FROM:-1}
case "$from" in '' | *[!0-9]*) die "FROM must be a patch number (1 for the first), got '$from'" ;; esac
from=$((10#$from))
[ "$from" -ge 1 ] || die "FROM must be a patch number (1 for the first), got '${FROM:-}'"
n=0 skipped=0
for c in $(git -C "$KSRC" rev-list --reverse base..HEAD); do
	n=$((n + 1))
	[ "$n" -ge "$from" ] || continue
	subject=$(git -C "$KSRC" log -1 --format=%s "$c")
	if ! git -C "$KSRC" diff-tree --no-commit-id --name-only -r "$c" |
		grep -qv -e '^Documentation/' -e '^tools/' -e '^MAINTAINERS$'; then
		log "series-check ($KARCH): [$n] $subject: only Documentation/, tools/ or MAINTAINERS, the kernel build is that of the patch before"
		skipped=$((skipped + 1))
		continue
	fi
	git -C "$wt" checkout -q --detach "$c"
	log "series-check ($KARCH): [$n] $subject"
	# Merge the fragment afresh: options a later patch adds must be enabled
	# as soon as their patch is there.
	rm -f "$out/.newtod-config"
	CONFIG_CHECK=warn KSRC=$wt KOUT=$out "$TOP/scripts/kernel.sh" >"$slog" 2>&1 ||
		{
			tail -20 "$slog" >&2
			die "patch $n ($subject) does not build on its own: see ${slog#"$TOP"/}"
		}
done
[ "$n" -ge "$from" ] || die "FROM=$from, but the series has $n patches"
if [ "$from" = 1 ]; then
	log "series-check ($KARCH): all $n patches build on their own ($skipped of them change no file the kernel build reads)"
else
	log "series-check ($KARCH): patches $from to $n build on their own ($skipped of them change no file the kernel build reads; 1 to $((from - 1)) not built in this run)"
fi
