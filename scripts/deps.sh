#!/usr/bin/env bash
# Install what the project needs from Debian's archive. Idempotent: when every
# package is already there it only checks and returns.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

KVER_PIN=6.12.118-1~deb12u1
PKGS=(gcc gcc-multilib libc6-dev make flex bison bc libelf-dev libssl-dev cpio xz-utils ccache
	qemu-system-x86 busybox-static linux-perf hyperfine linuxptp shellcheck
	gnuplot-nox python3 python3-ply python3-git git perl sparse python3-sphinx python3-yaml)

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
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	printf 'ERROR: missing packages and not root. Run as root:\n' >&2
	printf '  apt-get update && apt-get install -y --no-install-recommends %s linux-source-6.12=%s\n' \
		"${missing[*]}" "$KVER_PIN" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
log "deps: apt-get update"
apt-get update -qq || die "apt-get update failed: check the Debian mirror configuration in /etc/apt"

src_spec=()
if [ "$src_ok" = 0 ]; then
	if apt-cache madison linux-source-6.12 | awk -v v="$KVER_PIN" '$3 == v { f = 1 } END { exit !f }'; then
		src_spec=("linux-source-6.12=$KVER_PIN")
	else
		newest=$(apt-cache madison linux-source-6.12 | awk 'NR==1 {print $3}')
		[ -n "$newest" ] || die "no linux-source-6.12 in the archive: enable bookworm-security or bookworm-backports"
		printf '\n*** WARNING: linux-source-6.12 %s is gone from the archive; using %s. ***\n' \
			"$KVER_PIN" "$newest" >&2
		printf '*** The series may not apply; results are not comparable with NOTES.md. ***\n\n' >&2
		src_spec=("linux-source-6.12=$newest")
	fi
fi
log "deps: installing ${missing[*]} ${src_spec[*]}"
apt-get install -y -qq --reinstall --no-install-recommends "${missing[@]}" "${src_spec[@]}" >/dev/null ||
	die "apt-get install failed: see the messages above"
[ -f "$KSOURCE_TARBALL" ] || die "$KSOURCE_TARBALL is missing after installing linux-source-6.12"
log "deps: done"
