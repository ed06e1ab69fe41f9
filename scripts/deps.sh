#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install what the project needs from Debian's archive. Idempotent: when every
# package is already there it only checks and returns.
#
#   deps.sh [all]   the packages, and the i386 guest's busybox (make test boots
#                   an i386 guest): this adds the i386 architecture to dpkg, to
#                   download it; nothing i386 is installed
#   deps.sh host    the packages only (what every target without an i386 guest
#                   needs): no root once they are installed
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

KVER_PIN=6.12.118-1~deb12u1
PKGS=(gcc gcc-multilib libc6-dev make flex bison bc libelf-dev libssl-dev cpio xz-utils ccache
	qemu-system-x86 busybox-static linux-perf hyperfine linuxptp shellcheck
	gnuplot-nox python3 python3-ply python3-git git perl sparse python3-sphinx python3-yaml)

MODE=${1:-all}
case "$MODE" in
all | host) ;;
*) die "deps.sh: unknown mode '$MODE': use 'all' (packages and the i386 busybox) or 'host' (packages only)" ;;
esac

# apt-get update, tried again once after a pause. It runs once per set of
# dpkg architectures: adding i386 makes the next call fetch the lists again
# (apt has no i386 lists before), and --force fetches them again anyway. A mirror caught in a sync
# fails the update for one index ("File has unexpected size ... Mirror sync
# in progress?") while the others, and the packages this needs, are fine:
# then go on with the lists apt has; a package really missing fails the
# install or download below with its own message, and the pinned kernel
# source is not swapped for another version on lists that may be old.
APT_UPDATED_FOR='' APT_UPDATE_OK=1
apt_update() {
	local archs
	archs="native $(dpkg --print-foreign-architectures | LC_ALL=C sort | tr '\n' ' ')"
	[ "${1:-}" = --force ] || [ "$APT_UPDATED_FOR" != "$archs" ] || return 0
	APT_UPDATED_FOR=$archs APT_UPDATE_OK=1
	log "deps: apt-get update (architectures: ${archs% })"
	apt-get update -qq && return 0
	warn "apt-get update failed (apt's E: lines above name the source): trying again in 30 s"
	sleep 30
	apt-get update -qq && return 0
	APT_UPDATE_OK=0
	warn "apt-get update failed twice: going on with the package lists apt has (a suite whose update failed keeps its old lists, or none on a new machine). If something is missing below, fix the source named above in /etc/apt ('Mirror sync in progress?' clears by itself) and run 'make deps' again"
}
# what to add to an error when the lists may be stale
stale_lists() {
	[ "$APT_UPDATE_OK" = 1 ] || printf ' (apt-get update had failed: the package lists may be old or missing)'
}

# The i386 guest's busybox (make initramfs-i386): Debian's busybox-static
# for i386, unpacked to $BUSYBOX_I386, never installed (the host's is
# amd64; dpkg gets the i386 architecture only to download it). This host
# may not run i386 programs, so scripts/initramfs.sh links its applets by
# the host busybox's list: the two must be the same upstream version.
busybox_i386() {
	busybox_i386_ok && return 0
	if [ "$(id -u)" != 0 ]; then
		printf "ERROR: no i386 busybox in %s, or not of the host busybox-static's version. Run as root:\n" \
			"${BUSYBOX_I386#"$TOP"/}" >&2
		printf '  make deps   (dpkg --add-architecture i386; apt-get update; apt-get download busybox-static:i386; dpkg-deb -x)\n' >&2
		exit 1
	fi
	local tmp deb bin
	add_i386
	apt_update
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064 # $tmp is fixed now
	trap "rm -rf '$tmp'" EXIT
	log "deps: downloading busybox-static:i386 into ${BUSYBOX_I386#"$TOP"/}"
	# (as root: apt's _apt user cannot write to the private temporary directory)
	dl() { (cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root busybox-static:i386); }
	if ! dl; then
		apt_update --force
		dl || die "apt-get download busybox-static:i386 failed (above)$(stale_lists): is the i386 architecture in 'dpkg --print-foreign-architectures' and the mirror reachable?"
	fi
	deb=$(find "$tmp" -maxdepth 1 -name 'busybox-static_*_i386.deb' | head -1)
	[ -n "$deb" ] || die "apt-get download busybox-static:i386 left no .deb in $tmp"
	dpkg-deb -x "$deb" "$tmp/x" || die "dpkg-deb -x $deb failed: see the message above"
	bin=$(find "$tmp/x" -type f -name busybox -path '*bin/*' | head -1)
	if [ -z "$bin" ] || ! readelf -h "$bin" 2>/dev/null | grep -q 'Intel 80386'; then
		die "busybox-static:i386 holds no i386 busybox (looked for */bin/busybox in $deb)"
	fi
	mkdir -p "$(dirname "$BUSYBOX_I386")"
	install -m 755 "$bin" "$BUSYBOX_I386"
	dpkg-deb -f "$deb" Version >"$BUSYBOX_I386.version"
	busybox_i386_ok || die "busybox-static:i386 is $(cat "$BUSYBOX_I386.version"), the host's busybox-static $(dpkg-query -W -f='${Version}' busybox-static): upgrade the host's (apt-get install busybox-static) so that they match"
	log "deps: i386 busybox $(cat "$BUSYBOX_I386.version") in ${BUSYBOX_I386#"$TOP"/}"
}

# dpkg's i386 architecture, for the download of busybox-static:i386 (as root)
add_i386() {
	dpkg --print-foreign-architectures | grep -qx i386 && return 0
	log "deps: dpkg --add-architecture i386 (to download busybox-static:i386; nothing i386 is installed)"
	dpkg --add-architecture i386 || die "dpkg --add-architecture i386 failed: see the message above"
}

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
src_installed=$(dpkg-query -W -f='${Status} ${Version}' linux-source-6.12 2>/dev/null || true)
case "$src_installed" in
"install ok installed $KVER_PIN") src_ok=1 ;;
"install ok installed "*)
	warn "linux-source-6.12 ${src_installed##* } is installed, not the pinned $KVER_PIN; using it"
	src_ok=1
	;;
*) src_ok=0 ;;
esac
[ -f "$KSOURCE_TARBALL" ] || src_ok=0

if [ ${#missing[@]} -eq 0 ] && [ "$src_ok" = 1 ] && [ -f "$KSOURCE_TARBALL" ]; then
	log "deps: all packages present"
	[ "$MODE" = host ] || busybox_i386
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	printf 'ERROR: missing packages and not root. Run as root:\n' >&2
	printf '  apt-get update; apt-get install -y --no-install-recommends %s linux-source-6.12=%s\n' \
		"${missing[*]}" "$KVER_PIN" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# The architecture first, so that one update fetches the i386 lists too.
[ "$MODE" = host ] || busybox_i386_ok || add_i386
apt_update

src_spec=()
if [ "$src_ok" = 0 ]; then
	if apt-cache madison linux-source-6.12 | awk -v v="$KVER_PIN" '$3 == v { f = 1 } END { exit !f }'; then
		src_spec=("linux-source-6.12=$KVER_PIN")
	else
		[ "$APT_UPDATE_OK" = 1 ] ||
			die "linux-source-6.12=$KVER_PIN is not in apt's package lists, but apt-get update failed (above), so the bookworm-security lists may be old or missing: run 'make deps' again once the mirror is whole"
		newest=$(apt-cache madison linux-source-6.12 | awk 'NR==1 {print $3}')
		[ -n "$newest" ] || die "no linux-source-6.12 in the archive: enable bookworm-security or bookworm-backports"
		printf '\n*** WARNING: linux-source-6.12 %s is gone from the archive; using %s. ***\n' \
			"$KVER_PIN" "$newest" >&2
		printf '*** The series may not apply; results are not comparable with NOTES.md. ***\n\n' >&2
		src_spec=("linux-source-6.12=$newest")
	fi
fi
log "deps: installing ${missing[*]} ${src_spec[*]}"
apt-get install -y -qq -o DPkg::Lock::Timeout=300 --reinstall --no-install-recommends \
	"${missing[@]}" "${src_spec[@]}" >/dev/null ||
	die "apt-get install failed$(stale_lists): see the messages above"
[ -f "$KSOURCE_TARBALL" ] || die "$KSOURCE_TARBALL is missing after installing linux-source-6.12"
[ "$MODE" = host ] || busybox_i386
log "deps: done"
