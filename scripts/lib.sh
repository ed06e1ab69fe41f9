# shellcheck shell=bash
# Common helpers for the newtod host scripts. Source it; do not run it.

# Paths, overridable from the environment (the Makefile passes them in).
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=${BUILD:-$TOP/build}
KSRC=${KSRC:-$BUILD/linux}
KOUT=${KOUT:-$BUILD/kbuild}
RESULTS=${RESULTS:-$BUILD/results}
KSOURCE_TARBALL=${KSOURCE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}

# The patch series and its hash (what 'make tree' last applied is stamped).
PATCHDIR=${PATCHDIR:-$TOP/kernel-patches}
SERIES_STAMP=${SERIES_STAMP:-$KSRC/.git/newtod-series}
series() { find "$PATCHDIR" -maxdepth 1 -name '[0-9]*.patch' ! -name '0000-*' 2>/dev/null | LC_ALL=C sort; }
series_hash() {
	local p
	{
		echo series-v1
		while read -r p; do
			[ -n "$p" ] && cat "$p"
		done < <(series)
	} | sha256sum | cut -d' ' -f1
}

log() { printf '>>> %s\n' "$*" >&2; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die() {
	printf 'ERROR: %s\n' "$*" >&2
	exit 1
}

# need_cmd CMD...: fail with the make target that installs CMD when it is missing.
need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 ||
			die "'$c' is not installed: run 'make deps' as root (or see 'make help')"
	done
}

# series_functions KOUT: the functions of the series as built in KOUT, for
# judging KCSAN reports: every function of a C file the series adds, and of
# a stock file it changes only the functions named on its added lines.
# Compiler clones (name.constprop.0, .isra, .cold) are left out: their base
# names are shared with copies in other files.
series_functions() {
	local f o
	{
		git -C "$KSRC" diff --name-only --diff-filter=A base..HEAD -- '*.c' | while read -r f; do
			o=$1/${f%.c}.o
			if [ -f "$o" ]; then nm --defined-only "$o" | awk '$2 ~ /^[tTW]$/ { print $3 }'; fi
		done
		git -C "$KSRC" diff --name-only --diff-filter=M base..HEAD -- '*.c' | while read -r f; do
			o=$1/${f%.c}.o
			[ -f "$o" ] || continue
			nm --defined-only "$o" | awk '$2 ~ /^[tTW]$/ { print $3 }' |
				grep -wFf - <(git -C "$KSRC" diff base..HEAD -- "$f" | grep '^+' |
					grep -oE '[A-Za-z_][A-Za-z0-9_]*' | sort -u) || true
		done
	} | grep -v '\.' | sort -u
}
