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
