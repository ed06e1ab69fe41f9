#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The patch series in kernel-patches/.
#   patches.sh export      base..HEAD of $KSRC -> kernel-patches/ (git format-patch),
#                          keeping the hand-written 0000-cover-letter.patch
#   patches.sh checkpatch  scripts/checkpatch.pl --strict over the series; any
#                          ERROR, WARNING or CHECK fails
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

kgit() { git -C "$KSRC" "$@"; }
kgit rev-parse -q --verify base >/dev/null 2>&1 || die "no kernel tree with a 'base' tag in $KSRC: run 'make tree'"


case "${1:-}" in
export)
	[ -z "$(kgit status --porcelain --untracked-files=no)" ] ||
		die "$KSRC has uncommitted changes: commit them there first (git -C build/linux commit)"
	read -r applied _ <"$SERIES_STAMP" 2>/dev/null || applied=none
	[ "$applied" = "$(series_hash)" ] ||
		die "kernel-patches/ is not the series $KSRC was built from (it changed, or the last 'make tree' failed):
  exporting now would overwrite it. Run 'make tree' first (FORCE_TREE=1 to drop work in $KSRC)."
	n=$(kgit rev-list --count base..HEAD)
	mkdir -p "$PATCHDIR"
	find "$PATCHDIR" -maxdepth 1 -name '[0-9]*.patch' ! -name '0000-cover-letter.patch' -delete
	if [ "$n" -gt 0 ]; then
		kgit format-patch -q --zero-commit --no-signature --no-cover-letter \
			-o "$PATCHDIR" base..HEAD
	fi
	# The cover letter is written by hand, down to its shortlog and
	# diffstat, which are the series' own: rewrite them, and the count in
	# its subject, as 'git format-patch --cover-letter' would.
	cover=$PATCHDIR/0000-cover-letter.patch
	if [ -f "$cover" ]; then
		{
			kgit shortlog -w72,2,4 base..HEAD
			kgit diff --stat=72 --summary base HEAD
		} >"$BUILD/cover-tail.txt"
		python3 - "$cover" "$n" "$BUILD/cover-tail.txt" <<'PY' || die "patches: could not update $cover's shortlog and diffstat"
import re, sys
path, n, tail = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read()
text = open(path).read()
text = re.sub(r"^(Subject: \[PATCH )00/\d+\]", r"\g<1>00/%02d]" % n, text, count=1, flags=re.M)
# the shortlog starts at its first author ("Name (N):" over an indented
# subject), whoever that is: git sorts the authors by name
m = re.search(r"^\S[^\n]* \(\d+\):\n  \S", text, flags=re.M)
body = text[:m.start()] if m else text.rstrip("\n") + "\n\n"
open(path, "w").write(body + tail)
PY
	fi
	# The tree now is the series: record it so 'make tree' reuses it.
	"$TOP/scripts/tree.sh" >/dev/null
	log "patches: exported $n patch(es) to kernel-patches/"
	;;
checkpatch)
	total=0 bad=0
	while read -r p; do
		[ -n "$p" ] || continue
		total=$((total + 1))
		# Debian's python3 (with python3-ply, python3-git) for scripts/spdxcheck.py.
		# FILE_PATH_CHANGES asks, for every patch that adds a file without
		# touching MAINTAINERS, whether it should: the entry lists the
		# directories the series creates (F: kernel/timeofday/), so the
		# question is answered below, file by file, instead.
		out=$(cd "$KSRC" && { PATH=/usr/bin:$PATH ./scripts/checkpatch.pl -q --strict --no-summary --show-types \
			--ignore FILE_PATH_CHANGES "$p" 2>&1 || true; })
		if [ -n "$out" ]; then
			bad=$((bad + 1))
			printf '%s:\n%s\n\n' "${p#"$TOP"/}" "$out"
		fi
	done < <(series)
	# Every file the series adds is the core's in MAINTAINERS.
	uncovered=()
	while read -r f; do
		[ "$f" != MAINTAINERS ] || continue
		(cd "$KSRC" && ./scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats -f "$f" 2>/dev/null) |
			grep -q '^newtod developers <newtod@localhost>$' || uncovered+=("$f")
	done < <(git -C "$KSRC" diff --name-only --diff-filter=A base HEAD)
	if [ ${#uncovered[@]} -gt 0 ]; then
		printf 'not in the TIMEOFDAY CORE (NEWTOD) entry of MAINTAINERS: %s\n' "${uncovered[@]}"
		bad=$((bad + 1))
	fi
	[ "$bad" = 0 ] || die "checkpatch --strict: $bad of $total patch(es) have errors, warnings or checks, or files no MAINTAINERS entry covers (above)"
	log "checkpatch --strict: $total patch(es), all clean"
	;;
*) die "usage: patches.sh export|checkpatch" ;;
esac
