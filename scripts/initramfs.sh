#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest's base initramfs (newc cpio, uncompressed: QEMU loads it,
# no decompressor needed in the tiny kernel) into $BUILD/initramfs.cpio:
# busybox-static, the guest init and test runner, the static test and bench
# binaries from $BUILD/guest-bin, and Debian's perf and hyperfine with the
# shared libraries ldd names.
# KARCH=i386 builds the i386 guest's, $BUILD/initramfs-i386.cpio: the i386
# busybox (scripts/deps.sh), the init and runner, and the 32-bit tests of
# $BUILD/guest-bin32 (tests and bench); no perf, hyperfine or linuxptp
# (amd64 only).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

need_cmd cpio ldd readelf od
is_elf() { [ "$(head -c 4 "$1" 2>/dev/null | tail -c 3)" = ELF ]; }
is_elf32() { [ "$(od -An -tu1 -j4 -N1 "$1" 2>/dev/null | tr -d ' ')" = 1 ]; }
is_dynamic() { readelf -l "$1" 2>/dev/null | grep -q 'program interpreter'; }

if [ "$KARCH" = i386 ]; then
	BUSYBOX=${BUSYBOX:-$BUSYBOX_I386}
	bins=$BUILD/guest-bin32 root=$BUILD/initramfs-i386.root out=$BUILD/initramfs-i386.cpio
	target=initramfs-i386
	[ -x "$BUSYBOX" ] || die "no i386 busybox at $BUSYBOX: run 'make deps' as root"
	is_elf32 "$BUSYBOX" || die "$BUSYBOX is not a 32-bit program: run 'make deps' as root"
else
	BUSYBOX=${BUSYBOX:-/bin/busybox}
	bins=$BUILD/guest-bin root=$BUILD/initramfs.root out=$BUILD/initramfs.cpio
	target=initramfs
fi
if ! [ -x "$BUSYBOX" ] || ! is_elf "$BUSYBOX" || is_dynamic "$BUSYBOX"; then
	die "$BUSYBOX is not a static busybox: run 'make deps' (package busybox-static)"
fi
[ -d "$bins/tests" ] || die "no test programs in ${bins#"$TOP"/}: run 'make $target'"

rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,etc,tests,bench,guest,extra,job}

# The applets' links, from the busybox's own list. A host that cannot run
# i386 programs takes the i386 busybox's from the host busybox, of the same
# version (scripts/deps.sh fetches it so).
cp "$BUSYBOX" "$root/bin/busybox"
if ! apps=$("$BUSYBOX" --list-full 2>/dev/null); then
	if [ "$KARCH" != i386 ] || [ "$BUSYBOX" != "$BUSYBOX_I386" ] || ! busybox_i386_ok; then
		die "cannot run $BUSYBOX for its list of applets, and it is not the i386 busybox of the host busybox-static's version: run 'make deps' as root"
	fi
	apps=$(/bin/busybox --list-full) || die "/bin/busybox --list-full failed: run 'make deps' (busybox-static)"
fi
while read -r app; do
	[ -e "$root/$app" ] || ln -s /bin/busybox "$root/$app"
done <<<"$apps"

needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

# copy_needed32 FILE: the libraries a 32-bit FILE needs, and theirs, from
# /lib32 (where the i386 loader looks) to the image's /lib32.
copy_needed32() {
	local name
	for name in $(needed "$1"); do
		[ -e "$root/lib32/$name" ] && continue
		[ -e "/lib32/$name" ] || die "$1 needs $name, not found in /lib32: run 'make deps' (gcc-multilib)"
		cp -L "/lib32/$name" "$root/lib32/$name"
		copy_needed32 "/lib32/$name"
	done
}

# copy_libs32 BINARY: a 32-bit program's interpreter and libraries. Without
# ldd: ldd runs the program's loader, and a host kernel without IA32
# emulation cannot ("Exec format error").
copy_libs32() {
	local interp
	interp=$(readelf -l "$1" | sed -n 's/.*program interpreter: \(.*\)]/\1/p')
	[ -e "$interp" ] || die "$1 wants $interp, which is not here: run 'make deps' (gcc-multilib)"
	mkdir -p "$root$(dirname "$interp")" "$root/lib32"
	[ -e "$root$interp" ] || cp -L "$interp" "$root$interp"
	copy_needed32 "$1"
}

# copy_libs BINARY: every library a dynamic program loads.
copy_libs() {
	local bin=$1 lib libs
	if is_elf32 "$bin"; then
		copy_libs32 "$bin"
		return
	fi
	libs=$(ldd "$bin" | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }') ||
		die "ldd $bin failed: run 'make deps'"
	for lib in $libs; do
		mkdir -p "$root$(dirname "$lib")"
		[ -e "$root$lib" ] || cp -L "$lib" "$root$lib"
	done
}

# copy_with_libs BINARY: the binary and its libraries, at the same path.
copy_with_libs() {
	local bin=$1
	[ -x "$bin" ] || die "$bin not found: run 'make deps'"
	mkdir -p "$root$(dirname "$bin")"
	cp -L "$bin" "$root$bin"
	copy_libs "$bin"
}
# Debian's amd64 tools: not in the i386 guest
if [ "$KARCH" = x86_64 ]; then
	# Debian's /usr/bin/perf may be a wrapper script choosing perf_<version>.
	perf=/usr/bin/perf
	if ! is_elf "$perf"; then
		perf=$(find /usr/bin -maxdepth 1 -name 'perf_[0-9]*' | sort -V | tail -1)
		[ -n "$perf" ] || die "no perf binary found: run 'make deps' (package linux-perf)"
	fi
	copy_with_libs "$perf"
	[ "$perf" = /usr/bin/perf ] || ln -sf "$perf" "$root/usr/bin/perf"
	copy_with_libs /usr/bin/hyperfine
	# linuxptp, to drive the core's PTP clock
	copy_with_libs /usr/sbin/phc_ctl
	copy_with_libs /usr/sbin/phc2sys
fi

install -m 755 "$TOP/guest/init" "$root/init"
install -m 755 "$TOP/guest/run-tests.sh" "$root/guest/run-tests.sh"
install -m 644 "$TOP/guest/tests.list" "$root/tests/tests.list"
# the stock selftests' expected failures (guest/tests/kselftest-stock.sh);
# their runner, kselftest/runner.sh, is in $bins/tests/kselftest
install -m 644 "$TOP/guest/stock-xfail.list" "$root/tests/stock-xfail.list"
cp -a "$bins/tests/." "$root/tests/"
# the tests that are not static (the vDSO's selftest uses dlopen)
for t in "$root"/tests/*; do
	if [ -f "$t" ] && is_elf "$t" && is_dynamic "$t"; then
		copy_libs "$t"
	fi
done
install -m 755 "$TOP/bench/run-bench.sh" "$root/bench/run-bench.sh"
cp -a "$bins/bench/." "$root/bench/"
# The test timesource module is not here: scripts/qemu.sh adds the one of
# the kernel it boots.
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"

# Every program that tests.list names for a boot of this image's kernel
# must be in the image: the i386 image serves the boots of @i386 in
# boots.list, the other every other boot.
boot_list=$(list_boots "$TOP/guest/boots.list")
while read -r name cmd; do
	[ -x "$root/tests/${cmd#./}" ] || die "tests.list names $cmd for $name, but it was not built for $KARCH (see the Makefile)"
done < <(awk -v arch="$KARCH" '
	FILENAME == "-" { i386[$1] = $3 == "i386"; next }
	/^[ \t]*(#|$)/ { next }
	{
		n = split($1, t, ",")
		for (i = 1; i <= n; i++)
			if (i386[t[i]] == (arch == "i386")) { print $2, $4; next }
	}' - "$TOP/guest/tests.list" <<<"$boot_list")

(cd "$root" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --owner=0:0 --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
log "initramfs: $(du -h "$out" | cut -f1) in ${out#"$TOP"/}"
