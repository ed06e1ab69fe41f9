#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# 'make lint' beyond checkpatch: sparse (C=2), the compiler at W=1 and
# kernel-doc -Wall over the C files the series adds or changes (and Sphinx
# and get_abi.pl over its documentation, at the end), in the
# guest kernel's build ($KOUT). A finding counts when it is in a file the
# series adds, or on a line it adds to a stock file (line numbers from the
# working tree against base): stock's own warnings (posix-timers.c has a
# dozen under sparse) are not the series'. A warning the series causes
# inside a stock header, through a macro, is not seen. Any finding, a
# build that fails, or a file sparse did not check fails this script.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

need_cmd sparse perl python3
[ -f "$KOUT/.config" ] || die "no kernel configured in ${KOUT#"$TOP"/}: run 'make kernel' first"
kgit() { git -C "$KSRC" "$@"; }
mapfile -t added < <(kgit diff --name-only --diff-filter=A base -- '*.c' '*.h')
mapfile -t changed < <(kgit diff --name-only --diff-filter=M base -- '*.c' '*.h')

# The objects to rebuild: each C file's .o (the vDSO's through its
# directory). Removing them first makes gcc run, so that its W=1 warnings
# are printed again (ccache replays them); vdso2c.c is a host program and
# tools/ is user space, which sparse does not check.
objs=() want=()
for f in "${added[@]}" "${changed[@]}"; do
	case "$f" in
	# user space: the selftests' own build (make guest-bin) compiles them
	arch/x86/entry/vdso/vdso2c.c | tools/*) ;;
	arch/x86/entry/vdso/*.c)
		objs+=(arch/x86/entry/vdso/)
		rm -f "$KOUT/${f%.c}.o"
		want+=("$f")
		;;
	*.c)
		objs+=("${f%.c}.o")
		rm -f "$KOUT/${f%.c}.o"
		want+=("$f")
		;;
	esac
done
mapfile -t objs < <(printf '%s\n' "${objs[@]}" | LC_ALL=C sort -u)
out=$BUILD/lint.log
log "lint: sparse (C=2) and W=1 over ${#want[@]} C files of the series (log ${out#"$TOP"/})"
if ! kmake C=2 W=1 "${objs[@]}" >"$out" 2>&1; then
	grep -E 'error|Error' "$out" | head -20 >&2 || true
	die "lint: the build with C=2 W=1 failed (above; full log ${out#"$TOP"/}): stock builds cleanly, so it is the series'"
fi
for f in "${want[@]}"; do
	grep -qE "^  CHECK +(.*/)?$f\$" "$out" || die "lint: sparse did not check $f (see ${out#"$TOP"/})"
done
log "lint: kernel-doc -none -Wall over the ${#added[@]} added and ${#changed[@]} changed files"
kdoc=$BUILD/lint-kernel-doc.log
if ! (cd "$KSRC" && scripts/kernel-doc -none -Wall "${added[@]}" "${changed[@]}") >"$kdoc" 2>&1; then
	# it exits non-zero on warnings too: only a crash has no FILE:LINE line
	grep -qE '^[^ ]+:[0-9]+: (warning|error)' "$kdoc" ||
		die "lint: kernel-doc failed without a finding: $(tail -n 3 "$kdoc")"
fi
cat "$kdoc" >>"$out"

# Keep the findings that are the series': in an added file, or on an added line.
kgit diff --no-color --no-ext-diff --src-prefix=a/ --dst-prefix=b/ -U0 base -- "${changed[@]}" >"$BUILD/lint.diff"
rc=0
python3 - "$out" "$BUILD/lint.diff" "$KSRC" "${added[@]}" <<'PY' || rc=$?
import os, re, sys
log, diff, ksrc, added = sys.argv[1], sys.argv[2], os.path.realpath(sys.argv[3]), set(sys.argv[4:])
lines, cur = {}, None
for l in open(diff, errors="replace"):
    if l.startswith("+++ b/"):
        cur = l[6:].strip()
        lines.setdefault(cur, set())
    m = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", l)
    if m and cur:
        start, n = int(m.group(1)), int(m.group(2) or 1)
        lines[cur].update(range(start, start + n))
found = []
for l in open(log, errors="replace"):
    m = re.match(r"(\S+?):(\d+):(?:\d+:)? *(?:fatal )?(warning|error)\b", l)
    if not m:
        continue
    path = os.path.realpath(os.path.join(ksrc, m.group(1)))
    path = os.path.relpath(path, ksrc)
    if path in added or int(m.group(2)) in lines.get(path, ()):
        found.append(l.rstrip())
for f in sorted(set(found)):
    print(f)
sys.exit(1 if found else 0)
PY
[ "$rc" = 0 ] || die "lint: the findings above are the series' (sparse, W=1 or kernel-doc): fix them"
log "lint: sparse, W=1 and kernel-doc find nothing in the series' files and lines"

# The documentation: Sphinx over each Documentation/ directory in which the
# series adds or changes a .rst file (stock's own warnings elsewhere in the
# tree are not the series'), and the ABI files through get_abi.pl. A
# finding counts when it names a file the series adds or changes.
mapfile -t docs < <(kgit diff --name-only --diff-filter=AM base -- Documentation)
mapfile -t sphinxdirs < <(printf '%s\n' "${docs[@]}" | sed -n 's|^Documentation/\([^/]*\)/.*\.rst$|\1|p' | LC_ALL=C sort -u)
doclog=$BUILD/lint-docs.log
: >"$doclog"
if [ ${#sphinxdirs[@]} -gt 0 ]; then
	need_cmd sphinx-build
	log "lint: Sphinx (make htmldocs SPHINXDIRS='${sphinxdirs[*]}') over the series' .rst files"
	# from scratch: an incremental build would not print an unchanged file's warnings again
	rm -rf "$BUILD/htmldocs/Documentation/output"
	if ! make -C "$KSRC" O="$BUILD/htmldocs" htmldocs SPHINXDIRS="${sphinxdirs[*]}" >>"$doclog" 2>&1; then
		tail -n 20 "$doclog" >&2
		die "lint: the Sphinx build failed (above; log ${doclog#"$TOP"/}): run 'make deps' for python3-sphinx"
	fi
	for f in "${docs[@]}"; do
		case "$f" in *.rst) ;; *) continue ;; esac
		html=$BUILD/htmldocs/Documentation/output/${f#Documentation/}
		[ -s "${html%.rst}.html" ] ||
			die "lint: Sphinx made no ${html%.rst}.html from $f (log ${doclog#"$TOP"/})"
	done
fi
if printf '%s\n' "${docs[@]}" | grep -q '^Documentation/ABI/'; then
	log "lint: get_abi.pl validate over Documentation/ABI"
	(cd "$KSRC" && perl scripts/get_abi.pl validate --dir Documentation/ABI) >>"$doclog" 2>&1 ||
		die "lint: get_abi.pl validate failed (log ${doclog#"$TOP"/})"
fi
bad=()
for f in "${docs[@]}"; do
	name=${f#Documentation/}
	while IFS= read -r l; do bad+=("$l"); done < <(grep -E "(WARNING|ERROR|CRITICAL|SEVERE)" "$doclog" | grep -F -e "$f" -e "${name%.rst}" || true)
done
if [ ${#bad[@]} -gt 0 ]; then
	printf '%s\n' "${bad[@]}" | LC_ALL=C sort -u >&2
	die "lint: the documentation findings above are in files the series adds or changes: fix them"
fi
log "lint: Sphinx and get_abi.pl find nothing in the series' ${#docs[@]} documentation files"
