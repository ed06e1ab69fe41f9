#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Configure and build the guest kernel out of tree ($KOUT): tinyconfig plus
# the fragments of FRAGMENTS (space-separated, later ones win; default
# guest/kernel.config), ccache, all cores, for KARCH (x86_64, or i386 for
# make kernel-i386). The build log is $KOUT.log.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

read -ra frags <<<"${FRAGMENTS:-$TOP/guest/kernel.config}"
need_cmd make gcc ccache flex bison bc
[ -f "$KSRC/Makefile" ] || die "no kernel tree in $KSRC: run 'make tree'"
for f in "${frags[@]}"; do
	[ -f "$f" ] || die "no kernel config fragment $f (FRAGMENTS='${FRAGMENTS:-}')"
done
names=$(printf '%s + ' "${frags[@]#"$TOP"/}")
names=${names% + }
klog=$KOUT.log
# ARCH=x86_64 on an i386 .config would silently make it 64-bit, and back
built=$(kout_arch "$KOUT")
[ -z "$built" ] || [ "$built" = "$KARCH" ] ||
	die "${KOUT#"$TOP"/} holds a $built kernel build, not $KARCH: build it with KARCH=$built (make kernel-i386 for i386, make kernel for x86_64) or remove it"
mkdir -p "$KOUT"
# The fragments as one, each symbol's last line winning.
FRAGMENT=$KOUT/.newtod-fragment
awk '{
	sym = ""
	if ($0 ~ /^CONFIG_[A-Za-z0-9_]+=/) { sym = $0; sub(/=.*/, "", sym) }
	else if ($0 ~ /^# CONFIG_[A-Za-z0-9_]+ is not set/) sym = $2
	if (sym == "") next
	if (!(sym in line)) order[n++] = sym
	line[sym] = $0
} END { for (i = 0; i < n; i++) print line[order[i]] }' "${frags[@]}" >"$FRAGMENT.tmp"
mv "$FRAGMENT.tmp" "$FRAGMENT"

# check_config: every CONFIG_ line of the fragment must be in the final .config.
check_config() {
	local line sym val got bad=()
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			sym=${line%%=*}
			val=${line#*=}
			;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			val=n
			;;
		*) continue ;;
		esac
		got=$(grep -E "^$sym=|^# $sym is not set" "$KOUT/.config" || true)
		case "$got" in
		"$sym=$val") ;;
		"# $sym is not set") [ "$val" = n ] || bad+=("$sym=$val (got: not set)") ;;
		"") [ "$val" = n ] || bad+=("$sym=$val (got: absent; a dependency is missing)") ;;
		*) bad+=("$sym=$val (got: ${got#*=})") ;;
		esac
	done <"$FRAGMENT"
	if [ ${#bad[@]} -gt 0 ] && [ "${CONFIG_CHECK:-strict}" = warn ]; then
		# series-check: an early patch may not have a later patch's symbols yet
		printf 'note: not in this .config: %s\n' "${bad[@]}" >&2
		return 0
	fi
	if [ ${#bad[@]} -gt 0 ]; then
		printf 'ERROR: options asked for in %s are not in the final .config:\n' "$names" >&2
		printf '  %s\n' "${bad[@]}" >&2
		die "add the missing dependencies to $names (see 'make -C $KSRC O=$KOUT menuconfig', search with '/')"
	fi
}

stamp=$KOUT/.newtod-config
want=$({ cat "$FRAGMENT" "$KSRC/.git/newtod-series" 2>/dev/null || true; } | sha256sum | cut -d' ' -f1)
if [ ! -f "$KOUT/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	log "kernel: configuring ${KOUT#"$TOP"/} ($KARCH tinyconfig + $names)"
	kmake -s tinyconfig >/dev/null
	(cd "$KSRC" && KCONFIG_CONFIG="$KOUT/.config" scripts/kconfig/merge_config.sh -m -O "$KOUT" \
		"$KOUT/.config" "$FRAGMENT" >/dev/null) || die "merging $names failed"
	kmake -s olddefconfig >/dev/null
	check_config
	echo "$want" >"$stamp"
else
	# Patches may add Kconfig symbols: let olddefconfig settle them quietly.
	kmake -s olddefconfig >/dev/null
	check_config
fi

log "kernel: building ${KOUT#"$TOP"/} (ccache, -j$(nproc))"
start=$(date +%s)
targets=(bzImage)
grep -q '^CONFIG_MODULES=y' "$KOUT/.config" && targets+=(modules)
# Every 60 s while make runs: how long, and how many objects it has
# compiled (a build from scratch takes minutes and make -s is silent).
# It stops with this script (kill -0), and its sleep holds no output open.
touch "$KOUT/.newtod-build-start"
(
	set +e
	while sleep 60 >/dev/null 2>&1 && kill -0 "$$" 2>/dev/null; do
		n=$(find "$KOUT/" -name '*.o' -newer "$KOUT/.newtod-build-start" 2>/dev/null | wc -l)
		log "kernel: still building ${KOUT#"$TOP"/}: $(($(date +%s) - start)) s, $n objects built or taken from ccache"
	done
) &
beat=$!
krc=0
kmake -s "${targets[@]}" >"$klog" 2>&1 || krc=$?
kill "$beat" 2>/dev/null || true
wait "$beat" 2>/dev/null || true
if [ "$krc" != 0 ]; then
	grep -E 'error|Error|undefined reference' "$klog" | head -40 >&2 || true
	die "kernel build failed: full log in ${klog#"$TOP"/}"
fi
# 6.12's vDSO rule runs its link and its check as "link; check", so a
# failed vDSO link (a linker script error) does not fail make, and the
# image keeps the last vDSO that linked. Any linker error fails here.
if grep -E '^(ld|ld\.bfd|ld\.lld):' "$klog" | grep -vE 'warning' >&2; then
	die "the linker failed (above) although make did not: fix it; full log in ${klog#"$TOP"/}"
fi
grep -E 'warning:' "$klog" | head -20 >&2 || true
log "kernel: built in $(($(date +%s) - start)) s"
