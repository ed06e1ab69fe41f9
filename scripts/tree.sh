#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Prepare the kernel tree in $KSRC: the pristine linux-source-6.12 import,
# tagged 'base', with kernel-patches/*.patch applied by 'git am -3'.
#
# The tree is reused while the series is unchanged. When kernel-patches/
# changed, the tree is reset to 'base' and the series applied again, unless
# HEAD holds commits that are not in the series (work that was never
# exported): then it stops and says so.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

STAMP=$SERIES_STAMP

need_cmd git tar xz

kgit() { git -C "$KSRC" "$@"; }
# Quiet identity for the commits we make; nothing here is pushed anywhere.
export GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-newtod} GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-newtod@localhost}
export GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-newtod} GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-newtod@localhost}

import_base() {
	[ -f "$KSOURCE_TARBALL" ] || die "$KSOURCE_TARBALL not found: run 'make deps' as root"
	local tmp=$BUILD/linux.import.$$
	rm -rf "$tmp"
	mkdir -p "$tmp"
	log "tree: unpacking $KSOURCE_TARBALL (about 30 s)"
	tar -xf "$KSOURCE_TARBALL" -C "$tmp" --strip-components=1 ||
		die "unpacking $KSOURCE_TARBALL failed: check free space in $BUILD"
	# Debian's linux-source .gitignore ends with "/*" (ignore everything at
	# the top level): every file, including new ones a patch adds, would be
	# invisible to git. Drop Debian's packaging block so the tree tracks
	# like upstream's; this is the only change to the tarball's contents.
	sed -i '/^# Debian packaging:/,$d' "$tmp/.gitignore"
	sed -i -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$tmp/.gitignore"
	sed -i '${/^#$/d}' "$tmp/.gitignore"
	git -C "$tmp" init -q -b newtod
	git -C "$tmp" config core.autocrlf false
	git -C "$tmp" config gc.auto 0
	git -C "$tmp" add -A -f .
	local ver
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown)
	git -C "$tmp" commit -q -m "Import Debian linux-source-6.12 $ver" \
		-m "Pristine $(basename "$KSOURCE_TARBALL") except for Debian's packaging block at the end of the top-level .gitignore, which ignores every top-level path and would hide files added by the series."
	git -C "$tmp" tag base
	rm -rf "$KSRC"
	mv "$tmp" "$KSRC"
}

apply_series() {
	local p n=0
	while read -r p; do
		[ -n "$p" ] || continue
		if ! kgit am -q -3 "$p" >"$BUILD/am.log" 2>&1; then
			printf 'ERROR: patch %s does not apply to base:\n' "${p#"$TOP"/}" >&2
			sed 's/^/  /' "$BUILD/am.log" >&2
			# Name the failing hunk(s) against the tree without the merge fallback.
			kgit am --abort >/dev/null 2>&1 || true
			kgit apply --check -v "$p" 2>&1 | head -40 | sed 's/^/  /' >&2 || true
			# Leave no half-applied series behind: 'make patches' on it would
			# export only the patches before this one.
			kgit reset -q --hard base
			echo "failed $(kgit rev-parse base)" >"$STAMP"
			die "rebase ${p#"$TOP"/} onto the current series (fix it in $KSRC and run 'make patches')"
		fi
		n=$((n + 1))
	done < <(series)
	log "tree: applied $n patch(es)"
}

# Does kernel-patches/ applied to base give exactly the tree at HEAD?
series_matches_head() {
	local idx ok=0 p t
	idx=$(mktemp)
	if GIT_INDEX_FILE=$idx kgit read-tree base; then
		ok=1
		while read -r p; do
			[ -n "$p" ] || continue
			GIT_INDEX_FILE=$idx kgit apply --cached "$p" 2>/dev/null || {
				ok=0
				break
			}
		done < <(series)
		if [ $ok = 1 ]; then
			t=$(GIT_INDEX_FILE=$idx kgit write-tree)
			[ "$t" = "$(kgit rev-parse 'HEAD^{tree}')" ] || ok=0
		fi
	fi
	rm -f "$idx"
	[ $ok = 1 ]
}

mkdir -p "$BUILD"
want=$(series_hash)

if ! kgit rev-parse -q --verify base >/dev/null 2>&1; then
	import_base
	apply_series
	echo "$want $(kgit rev-parse HEAD)" >"$STAMP"
	exit 0
fi

read -r have have_head <"$STAMP" 2>/dev/null || { have=none; have_head=none; }
if [ "$want" = "$have" ]; then
	log "tree: $KSRC is up to date with kernel-patches/"
	exit 0
fi

head=$(kgit rev-parse HEAD)
if series_matches_head; then
	# Typically right after 'make patches': the tree already is the series.
	log "tree: $KSRC already matches kernel-patches/"
	echo "$want $head" >"$STAMP"
	exit 0
fi
if [ "$head" != "$have_head" ] && [ "${FORCE_TREE:-0}" != 1 ]; then
	die "kernel-patches/ changed, but $KSRC has commits not exported to kernel-patches/.
  Keep them: run 'make patches' and commit kernel-patches/. Drop them: make FORCE_TREE=1 ..."
fi
if [ -n "$(kgit status --porcelain --untracked-files=no)" ] && [ "${FORCE_TREE:-0}" != 1 ]; then
	die "kernel-patches/ changed, but $KSRC has uncommitted changes: commit or discard them, or make FORCE_TREE=1 ..."
fi
log "tree: kernel-patches/ changed, re-applying the series on base"
kgit am --abort >/dev/null 2>&1 || true
kgit checkout -q -f -B newtod base
kgit clean -q -fdx -e .newtod-keep >/dev/null
apply_series
echo "$want $(kgit rev-parse HEAD)" >"$STAMP"
