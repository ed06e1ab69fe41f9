#!/usr/bin/env bash
# 'make lint' beyond checkpatch: sparse (C=2), the compiler at W=1 and
# kernel-doc -Wall over the C files the series adds or changes, in the
# guest kernel's build ($KOUT). A finding counts when it is in a file the
# series adds, or on a line it adds to a stock file: stock's own warnings
# (posix-timers.c has a dozen under sparse) are not the series'. Any
# finding fails, with the list.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

need_cmd sparse perl python3
[ -f "$KOUT/.config" ] || die "no kernel configured in ${KOUT#"$TOP"/}: run 'make kernel' first"
kgit() { git -C "$KSRC" "$@"; }
mapfile -t added < <(kgit diff --name-only --diff-filter=A base HEAD -- '*.c' '*.h')
mapfile -t changed < <(kgit diff --name-only --diff-filter=M base HEAD -- '*.c' '*.h')

# The objects to rebuild: each C file's .o (the vDSO's through its
# directory, vdso2c is a host tool built there too).
objs=()
for f in "${added[@]}" "${changed[@]}"; do
	case "$f" in
	arch/x86/entry/vdso/*) objs+=(arch/x86/entry/vdso/) ;;
	*.c) objs+=("${f%.c}.o") ;;
	esac
done
mapfile -t objs < <(printf '%s\n' "${objs[@]}" | LC_ALL=C sort -u)
out=$BUILD/lint.log
log "lint: sparse (C=2) and W=1 over ${#objs[@]} targets of the series (log ${out#"$TOP"/})"
# -k: a file that fails to build is reported with the others, not alone
make -C "$KSRC" O="$KOUT" ARCH=x86_64 CC="ccache gcc" -k -j"$(nproc)" C=2 W=1 "${objs[@]}" >"$out" 2>&1 ||
	warn "lint: the build had errors (counted below)"
log "lint: kernel-doc -none -Wall over the ${#added[@]} added and ${#changed[@]} changed files"
(cd "$KSRC" && scripts/kernel-doc -none -Wall "${added[@]}" "${changed[@]}") >>"$out" 2>&1 || true

# Keep the findings that are the series': in an added file, or on an added line.
kgit diff -U0 base HEAD -- "${changed[@]}" >"$BUILD/lint.diff"
rc=0
python3 - "$out" "$BUILD/lint.diff" "$KSRC" "${added[@]}" <<'PY' || rc=$?
import os, re, sys
log, diff, ksrc, added = sys.argv[1], sys.argv[2], sys.argv[3], set(sys.argv[4:])
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
    m = re.match(r"(?:warning: )?(\S+?):(\d+):(?:\d+:)? *(warning|error)\b", l)
    if not m:
        m = re.match(r"(warning|error): (\S+?):(\d+) ", l)  # kernel-doc
        if not m:
            continue
        path, line = m.group(2), int(m.group(3))
    else:
        path, line = m.group(1), int(m.group(2))
    path = os.path.relpath(os.path.normpath(os.path.join(ksrc, path)), ksrc) if not path.startswith("/") \
        else os.path.relpath(path, ksrc)
    if path in added or line in lines.get(path, ()):
        found.append(l.rstrip())
for f in sorted(set(found)):
    print(f)
sys.exit(1 if found else 0)
PY
[ "$rc" = 0 ] || die "lint: the findings above are the series' (sparse, W=1 or kernel-doc): fix them"
log "lint: sparse, W=1 and kernel-doc find nothing in the series' files and lines"
