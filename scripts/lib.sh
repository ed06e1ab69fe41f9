# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Common helpers for the newtod host scripts. Source it; do not run it.

# Paths, overridable from the environment (the Makefile passes them in).
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=${BUILD:-$TOP/build}
KSRC=${KSRC:-$BUILD/linux}
# The guest's kernel architecture: x86_64, or i386 (make kernel-i386), whose
# build defaults to its own directory.
KARCH=${KARCH:-x86_64}
case "$KARCH" in
x86_64) KOUT=${KOUT:-$BUILD/kbuild} ;;
i386) KOUT=${KOUT:-$BUILD/kbuild-i386} ;;
*)
	printf "ERROR: KARCH='%s' is not a guest architecture: use KARCH=x86_64 (the default) or KARCH=i386\n" "$KARCH" >&2
	exit 1
	;;
esac
RESULTS=${RESULTS:-$BUILD/results}
# The i386 guest's static busybox: Debian's busybox-static:i386, unpacked
# by scripts/deps.sh (the host's /bin/busybox is amd64), its package
# version in $BUSYBOX_I386.version.
BUSYBOX_I386=${BUSYBOX_I386:-$BUILD/busybox-i386/busybox}
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

# busybox_i386_ok: $BUSYBOX_I386 is there and of the host busybox-static's
# upstream version (1:1.35.0-4+deb12u1+b1 -> 1.35.0): scripts/initramfs.sh
# may have to link its applets by the host busybox's list.
busybox_i386_ok() {
	local v w
	v=$(cat "$BUSYBOX_I386.version" 2>/dev/null) || return 1
	w=$(dpkg-query -W -f='${Version}' busybox-static 2>/dev/null) || return 1
	v=${v#*:} w=${w#*:}
	[ -x "$BUSYBOX_I386" ] && [ "${v%%-*}" = "${w%%-*}" ]
}

# list_boots FILE: the boots of FILE (guest/boots.list), the one reading of
# its format that every script uses. A line of it is
#   NAME [on-demand] [@KERNEL] [KERNEL PARAMETER...]
# and each boot comes out as
#   NAME WHEN KERNEL [KERNEL PARAMETER...]
# WHEN "run" (a boot of make test) or "on-demand" (run only when ONLY names
# it), KERNEL "default" or the name after @ (its build: build/kbuild-KERNEL,
# its fragment: guest/kernel-KERNEL.config). Comments and blank lines go
# (a comment is a line of its own); a NAME of letters, digits, ".", "_" and
# "-" (it names files, and tests.list joins boots with commas); a line out
# of this order, a carriage return or a name given twice stops the caller.
list_boots() {
	local f=$1 out
	[ -f "$f" ] || die "no boot list $f: run from a checkout of newtod"
	out=$(awk '
		function bad(why) {
			print "ERROR: " FILENAME ":" FNR ": " why ": fix this line" > "/dev/stderr"
			err = 1
		}
		/\r/ { bad("a carriage return (a file saved with DOS line ends?)"); next }
		/^[ \t]*(#|$)/ { next }
		{
			when = "run"; i = 2
			if ($i == "on-demand") { when = "on-demand"; i++ }
			kern = "default"
			if ($i ~ /^@/) { kern = substr($i, 2); i++ }
			if ($1 !~ /^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/ || $1 == "on-demand") {
				bad("boot name \"" $1 "\": want letters, digits, \".\", \"_\" and \"-\"")
				next
			}
			if (kern !~ /^[a-z0-9_-]+$/) { bad("kernel \"@" kern "\": want @ and a lower-case name"); next }
			for (j = i; j <= NF; j++)
				if ($j == "on-demand" || $j ~ /^[@#]/) break
			if (j <= NF) {
				bad("\"" $j "\" after the kernel parameters: want NAME [on-demand] [@KERNEL] [KERNEL PARAMETER...], in that order, and comments on lines of their own")
				next
			}
			if ($1 in seen) { bad("boot " $1 " defined twice (line " seen[$1] " too): rename one"); next }
			seen[$1] = FNR
			line = $1 " " when " " kern
			for (j = i; j <= NF; j++) line = line " " $j
			print line
		}
		END { exit err }' "$f") || die "$f is malformed: fix the lines above"
	[ -z "$out" ] || printf '%s\n' "$out"
}

# kunit_off "CMDLINE": whether the kernel command line turns KUnit off (its
# last kunit.enable= wins; a bool as kstrtobool() reads it)
kunit_off() {
	local w off=0 words
	read -ra words <<<"$1"
	for w in "${words[@]}"; do
		case "$w" in
		kunit.enable=[0nNfF]* | kunit.enable=[oO][fF]*) off=1 ;;
		kunit.enable=*) off=0 ;;
		esac
	done
	[ "$off" = 1 ]
}

# result_lines INNER: the runner's result lines of a results file (on
# stdin, guest/run-tests.sh's KTAP), each with the time its "# newtod-run:"
# line gave, and its exit status where that is neither 0 nor 4 (a skip):
# "ok 3 tod_core (12.3 s)", "not ok 4 tod_ntp (exit 139, 0.3 s)"; INNER 1
# adds the programs' own failed cases ("# not ok ...") too.
result_lines() {
	tr -d '\r' | awk -v inner="$1" '
		/^# newtod-run: [^ ]+ exited [0-9]+ after [0-9.]+ s$/ {
			t[$3] = ($5 == 0 || $5 == 4 ? "" : "exit " $5 ", ") $(NF - 1) " s"
			next
		}
		/^(not )?ok [0-9]+ / {
			n = $1 == "not" ? $4 : $3
			print $0 (n in t ? " (" t[n] ")" : "")
			delete t[n]
			next
		}
		inner && /^# not ok/'
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

# series_messages: the warnings and errors the series' code prints
# (pr_warn, pr_err, pr_crit, pr_alert, pr_emerg, their _once and
# _ratelimited forms, dev_warn, dev_err), one line each: the longest part
# of its format without a conversion, for a fixed-string match in the
# console (scripts/check-run.sh --series-msgs). Read from build/linux's
# series (base..HEAD).
series_messages() {
	git -C "$KSRC" diff base..HEAD -- '*.c' '*.h' | grep '^+' | cut -c2- | awk '
		/(^|[^A-Za-z0-9_])(pr_(warn|err|crit|alert|emerg)(_once|_ratelimited)?|dev_(warn|err))\(/ { want = 3 }
		want > 0 {
			want--
			if (match($0, /"([^"\\]|\\.)*"/)) {
				fmt = substr($0, RSTART + 1, RLENGTH - 2)
				gsub(/\\n/, "", fmt)
				n = split(fmt, part, /%[-+ 0#]*[0-9*]*(\.[0-9*]+)?[hlLzjt]*[a-zA-Z]/)
				best = ""
				for (i = 1; i <= n; i++) if (length(part[i]) > length(best)) best = part[i]
				gsub(/%%/, "%", best)
				gsub(/^ +| +$/, "", best)
				if (length(best) >= 10) print best
				want = 0
			}
		}' | LC_ALL=C sort -u
}


# series_functions KOUT: the functions of the series as built in KOUT, for
# judging KCSAN reports: the functions its C files define, from each
# object's symbols. A definition is a name with a '(' on a line of the
# series' that starts in column 0 and does not end in ';' (a definition's
# head; calls are indented, prototypes end in ';'). In a file the series
# adds, the inlines of the headers it adds count as its own, and a symbol
# its source never names is kept too (made by a macro); an out-of-line
# copy of a stock header's inline, which the source only calls, is not.
# In a stock file it changes, its added lines count, and so does a stock
# function whose body it changes (the function of a hunk whose first added
# line of code, comments aside, is indented): code of the series inlined there has no symbol of its
# own. Compiler clones (name.isra.0, .constprop.0, .cold) count by their
# base name; a name KOUT/System.map defines more than once (a static copy
# in many objects, lock_is_held, KCSAN's _sub_I_ constructors) does not.
series_functions() {
	local f o
	defined() { grep -E '^\+?[A-Za-z_]' | grep -vE ';[[:space:]]*$' |
		grep -oE '[A-Za-z_][A-Za-z0-9_]*\(' | tr -d '(' | sort -u; }
	symbols() { nm --defined-only "$1" | awk '$2 ~ /^[tTW]$/ { sub(/\..*/, "", $3); print $3 }' | sort -u; }
	# the function of each hunk whose first added line is indented
	changed() { awk '/^@@/ { head = $0; sub(/^@@[^@]*@@ ?/, "", head); first = 1; next }
		first && /^\+/ && !/^\+[ \t]*(\*|\/\*|\/\/|$)/ { first = 0
			if (/^\+[ \t]/ && match(head, /[A-Za-z_][A-Za-z0-9_]*\(/))
				print substr(head, RSTART, RLENGTH - 1) }'; }
	local hdrs=() map=$1/System.map
	while read -r f; do hdrs+=("$KSRC/$f"); done < <(git -C "$KSRC" diff --name-only --diff-filter=A base..HEAD -- '*.h')
	{
		git -C "$KSRC" diff --name-only --diff-filter=A base..HEAD -- '*.c' | while read -r f; do
			o=$1/${f%.c}.o
			[ -f "$o" ] || continue
			# defined here or in a header of the series, or never named in the source
			symbols "$o" | grep -xFf <(cat "$KSRC/$f" "${hdrs[@]}" | defined) || true
			symbols "$o" | grep -vwFf <(grep -oE '[A-Za-z_][A-Za-z0-9_]*' "$KSRC/$f" | sort -u) || true
		done
		git -C "$KSRC" diff --name-only --diff-filter=M base..HEAD -- '*.c' | while read -r f; do
			o=$1/${f%.c}.o
			[ -f "$o" ] || continue
			symbols "$o" | grep -xFf <({ git -C "$KSRC" diff base..HEAD -- "$f" | grep '^+' | defined
				git -C "$KSRC" diff -U0 base..HEAD -- "$f" | changed; } | sort -u) || true
		done
	} | sort -u | if [ -f "$map" ]; then
		grep -vxFf <(awk '{ n[$3]++ } END { for (s in n) if (n[s] > 1) print s }' "$map") || true
	else
		cat
	fi
}

# kout_arch DIR: the architecture of the kernel configured in DIR (i386 or
# x86_64), from its .config; empty when DIR has none.
kout_arch() {
	if grep -q '^CONFIG_X86_32=y' "$1/.config" 2>/dev/null; then
		echo i386
	elif grep -q '^CONFIG_X86_64=y' "$1/.config" 2>/dev/null; then
		echo x86_64
	fi
}

# make in the kernel tree $KSRC, out of tree in $KOUT, for $KARCH, as every
# build of the guest kernel runs it: the same CC, HOSTCC and build identity,
# so one build does not make the next rebuild its host tools or objects.
kmake() {
	make -C "$KSRC" O="$KOUT" ARCH="$KARCH" CC="ccache gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP='newtod' KBUILD_BUILD_USER=newtod KBUILD_BUILD_HOST=qemu \
		-j"$(nproc)" "$@"
}
