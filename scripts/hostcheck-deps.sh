# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# make hostcheck's replay of scripts/deps.sh on machines it cannot be run on:
# apt-get, apt-cache, dpkg, dpkg-query, dpkg-deb, readelf, id and sleep are
# stubs that keep the machine's state in files. Sourced by hostcheck.sh
# (its ok, notok and tmp); each case starts from a machine of its own.
#
# The state of a replayed machine, in $S:
#   archs      dpkg's foreign architectures, a line each
#   lists      the architectures apt has package lists for (apt-get update
#              writes them: "amd64" and each of archs)
#   installed  "package version" lines
#   uid        what id -u prints
#   update     how apt-get update goes: ok; fail-index (a mirror in sync:
#              the lists are written, then exit 100, as when one index of
#              a suite that is not needed fails); fail (nothing written)
#   calls      each stub call, a line each, for the order of events

tmp=${tmp:?hostcheck-deps.sh is sourced by scripts/hostcheck.sh, which sets tmp}
REPLAY_BB_VER='1:1.35.0-4+b3'
REPLAY_KVER='6.12.118-1~deb12u1'
REPLAY_PKGS=(gcc gcc-multilib libc6-dev make flex bison bc libelf-dev libssl-dev cpio xz-utils ccache
	qemu-system-x86 busybox-static linux-perf hyperfine linuxptp shellcheck
	gnuplot-nox python3 python3-ply python3-git git perl sparse python3-sphinx python3-yaml)

replay_stubs() { # DIR: write the stubs into DIR
	local d=$1
	mkdir -p "$d"
	# shellcheck disable=SC2016 # the stubs expand their own variables
	{
		printf '#!/usr/bin/env bash\nset -euo pipefail\nS=$REPLAY_STATE\necho "$(basename "$0") $*" >>"$S/calls"\n'
		printf 'BB_VER=%q KVER=%q\n' "$REPLAY_BB_VER" "$REPLAY_KVER"
	} >"$d/.head"
	# shellcheck disable=SC2016
	cat "$d/.head" - >"$d/dpkg" <<'EOF'
case "$1" in
--print-foreign-architectures) cat "$S/archs" ;;
--add-architecture) echo "$2" >>"$S/archs" ;;
*) echo "dpkg stub: $* not replayed" >&2; exit 2 ;;
esac
EOF
	# shellcheck disable=SC2016
	cat "$d/.head" - >"$d/dpkg-query" <<'EOF'
fmt=${2#-f=} pkg=$3
v=$(awk -v p="$pkg" '$1 == p { print $2 }' "$S/installed")
[ -n "$v" ] || { echo "dpkg-query: no packages found matching $pkg" >&2; exit 1; }
fmt=${fmt//'${Status}'/install ok installed}
printf '%s' "${fmt//'${Version}'/$v}"
EOF
	# shellcheck disable=SC2016
	cat "$d/.head" - >"$d/apt-get" <<'EOF'
has_list() { grep -qx "$1" "$S/lists" 2>/dev/null; }
cmd=
for a in "$@"; do case "$a" in update | install | download) cmd=$a ;; esac; done
case "$cmd" in
update)
	mode=$(cat "$S/update")
	[ "$mode" != fail ] || { echo "E: Failed to fetch (replayed)" >&2; exit 100; }
	{ echo amd64; cat "$S/archs"; } >"$S/lists"
	[ "$mode" != fail-index ] || { echo "E: File has unexpected size. Mirror sync in progress?" >&2; exit 100; }
	;;
install)
	[ "$(cat "$S/uid")" = 0 ] || { echo "E: Could not open lock file (are you root?)" >&2; exit 100; }
	for a in "$@"; do
		case "$a" in -* | install | DPkg::* | APT::*) continue ;; esac
		p=${a%%=*} v=1.0
		[ "$p" = "$a" ] || v=${a#*=}
		has_list amd64 && ! grep -qx "$p" "$S/absent" 2>/dev/null ||
			{ echo "E: Unable to locate package $p" >&2; exit 100; }
		[ "$p" != busybox-static ] || v=$BB_VER
		[ "$p" != linux-source-6.12 ] || : >"$KSOURCE_TARBALL"
		echo "$p $v" >>"$S/installed"
	done
	;;
download)
	has_list i386 || { echo "E: Unable to locate package busybox-static:i386" >&2; exit 100; }
	: >"busybox-static_${BB_VER#*:}_i386.deb"
	;;
*) echo "apt-get stub: $* not replayed" >&2; exit 2 ;;
esac
EOF
	# shellcheck disable=SC2016
	cat "$d/.head" - >"$d/apt-cache" <<'EOF'
grep -qx amd64 "$S/lists" 2>/dev/null || exit 0
echo " linux-source-6.12 | $KVER | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages"
EOF
	# shellcheck disable=SC2016
	cat "$d/.head" - >"$d/dpkg-deb" <<'EOF'
case "$1" in
-x) mkdir -p "$3/bin" && printf '#!/bin/sh\n' >"$3/bin/busybox" && chmod 755 "$3/bin/busybox" ;;
-f) echo "$BB_VER" ;;
*) exit 2 ;;
esac
EOF
	# shellcheck disable=SC2016
	cat "$d/.head" - >"$d/readelf" <<'EOF'
echo '  Machine:                           Intel 80386'
EOF
	# shellcheck disable=SC2016
	cat "$d/.head" - >"$d/id" <<'EOF'
cat "$S/uid"
EOF
	cat "$d/.head" >"$d/sleep"
	rm "$d/.head"
	chmod 755 "$d"/*
}

# replay_machine DIR UID ARCHS LISTS UPDATE INSTALLED: a machine's state
# (ARCHS, LISTS: space-separated; INSTALLED: all, none, or all-but PKG)
replay_machine() {
	local s=$1 p
	rm -rf "$s" && mkdir -p "$s/build"
	echo "$2" >"$s/uid"
	: >"$s/archs" && : >"$s/lists" && : >"$s/installed" && : >"$s/calls"
	for p in $3; do echo "$p" >>"$s/archs"; done
	for p in $4; do echo "$p" >>"$s/lists"; done
	echo "$5" >"$s/update"
	case "$6" in
	none) ;;
	all | all-but*)
		for p in "${REPLAY_PKGS[@]}"; do
			[ "$6" != "all-but $p" ] || continue
			if [ "$p" = busybox-static ]; then echo "$p $REPLAY_BB_VER"; else echo "$p 1.0"; fi
		done >"$s/installed"
		[ "$6" = "all-but linux-source-6.12" ] || {
			echo "linux-source-6.12 $REPLAY_KVER" >>"$s/installed"
			: >"$s/linux-source-6.12.tar.xz"
		}
		;;
	esac
}

# deps_ NAME EXPECT_RC EXPECT_REGEX MODE: run deps.sh MODE on $S's machine
deps_() {
	local name=$1 want_rc=$2 want=$3 mode=$4 rc=0 out
	out=$(REPLAY_STATE=$S PATH="$tmp/stubs:$PATH" KSOURCE_TARBALL="$S/linux-source-6.12.tar.xz" \
		BUILD="$S/build" BUSYBOX_I386="$S/build/busybox-i386/busybox" \
		bash "$TOP/scripts/deps.sh" "$mode" 2>&1) || rc=$?
	if [ "$rc" != "$want_rc" ]; then
		notok "deps: $name: exit $rc, expected $want_rc"
		printf '%s\n' "$out" | tail -n 8 | sed 's/^/# /'
		return
	elif [ -n "$want" ] && ! grep -qE -- "$want" <<<"$out"; then
		notok "deps: $name: no line matching '$want'"
		printf '%s\n' "$out" | tail -n 8 | sed 's/^/# /'
		return
	fi
	ok "deps: $name"
}
# has_busybox NAME: the replayed machine got its i386 busybox
has_busybox() {
	if [ -x "$S/build/busybox-i386/busybox" ] &&
		[ "$(cat "$S/build/busybox-i386/busybox.version")" = "$REPLAY_BB_VER" ]; then
		ok "deps: $1: the i386 busybox is in build/busybox-i386"
	else
		notok "deps: $1: no i386 busybox in build/busybox-i386"
	fi
}

replay_stubs "$tmp/stubs"
S=$tmp/machine

# A new Debian 12 machine: root, no i386, nothing installed, no lists.
replay_machine "$S" 0 "" "" ok none
deps_ "a new machine (no i386 architecture, nothing installed)" 0 'deps: done' all
has_busybox "a new machine"
if [ "$(grep -c '^apt-get .*update' "$S/calls")" = 1 ] &&
	[ "$(grep -n '^dpkg --add-architecture i386' "$S/calls" | cut -d: -f1)" -lt \
		"$(grep -n '^apt-get .*update' "$S/calls" | cut -d: -f1)" ]; then
	ok "deps: a new machine: one apt-get update, after dpkg --add-architecture i386"
else
	notok "deps: a new machine: $(grep -c '^apt-get .*update' "$S/calls") apt-get updates, expected 1"
fi
calls=$(wc -l <"$S/calls")
deps_ "a second run on that machine only checks" 0 'all packages present' all
later=$(tail -n "+$((calls + 1))" "$S/calls")
if ! grep -q '^apt-get' <<<"$later"; then
	ok "deps: a second run calls no apt-get"
else
	notok "deps: a second run called apt-get: $(grep '^apt-get' <<<"$later" | tr '\n' ';')"
fi

# The same with a mirror in sync: every update fails one index.
replay_machine "$S" 0 "" "" fail-index none
deps_ "a new machine whose mirror fails one index" 0 'apt-get update failed twice' all
has_busybox "a mirror that fails one index"

# A machine where apt-get update fails entirely: a clear error, not a hang.
replay_machine "$S" 0 "" "" fail none
deps_ "a new machine whose apt-get update fails" 1 'ERROR: .*apt-get update (had )?failed' all

# Every package installed, no i386: the download's own path.
replay_machine "$S" 0 "" "amd64" ok all
deps_ "every package installed, no i386 architecture" 0 'i386 busybox 1:1.35.0' all
has_busybox "every package installed"

# i386 added by an earlier run whose lists did not follow.
replay_machine "$S" 0 "i386" "amd64" ok all
deps_ "i386 added earlier, no i386 lists yet" 0 'i386 busybox 1:1.35.0' all

# Without root: 'host' is what the x86-64 targets need.
replay_machine "$S" 1000 "" "amd64" ok all
deps_ "no root, every package installed: 'host' passes" 0 'all packages present' host
if grep -q '^dpkg --add-architecture' "$S/calls"; then
	notok "deps: 'host' added the i386 architecture"
else
	ok "deps: 'host' leaves dpkg's architectures alone"
fi
deps_ "no root, no i386 busybox: 'all' says to run make deps as root" 1 'Run as root' all
replay_machine "$S" 1000 "" "amd64" ok "all-but hyperfine"
deps_ "no root, a package missing: the install command to run as root" 1 \
	'apt-get install -y --no-install-recommends hyperfine linux-source-6.12=' host

# A package the archive does not have fails the install with its name.
replay_machine "$S" 0 "" "" ok none
echo sparse >"$S/absent"
deps_ "a package missing from the archive" 1 'E: Unable to locate package sparse' all
