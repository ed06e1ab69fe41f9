#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host side of 'make bench': BOOTS guest boots (default 1) running
# bench/run-bench.sh. Each run writes into a fresh directory,
# $RESULTS/bench-DATE-COMMIT (boot1/, boot2/, ... when BOOTS > 1), and
# $RESULTS/bench-latest points at it (bench-i386-... and bench-i386-latest
# for KARCH=i386, make bench-i386); the summary reads only that run, and
# run.json records its date, commit and command for bench/notes.py. The
# raw figures are saved as JSON and drawn as a bar chart (gnuplot, SVG)
# when gnuplot is there. A failed path in any boot fails 'make bench',
# after the figures are saved.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

boots=${BOOTS:-1}
case "$boots" in '' | *[!0-9]*) die "BOOTS must be a positive number of boots, got '$boots'" ;; esac
boots=$((10#$boots)) # 08 is eight boots, not an octal error
[ "$boots" -gt 0 ] || die "BOOTS must be a positive number of boots, got '${BOOTS:-}'"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
commit=$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo nogit)
if [ -n "$(git -C "$TOP" status --porcelain 2>/dev/null)" ]; then
	commit=$commit-dirty
fi
# The i386 guest's runs (make bench-i386) keep their own results and
# latest link, so that make bench-notes reads the x86-64 run only.
pfx=bench
[ "$KARCH" = x86_64 ] || pfx=bench-$KARCH
run=$RESULTS/$pfx-$stamp-$commit
mkdir -p "$RESULTS"
mkdir "$run" || die "$run exists already (two runs in one second?): run 'make bench' again"
# What bench/notes.py quotes with each table: when, from what, how (the
# command with every setting that changes the guest), and how it ended
# ("failed": null while it runs).
date=$(date -u '+%Y-%m-%d %H:%M UTC')
run_json() { # FAILED: write $run/run.json
	BENCH_DATE=$date BENCH_COMMIT=$commit BENCH_BOOTS=$boots BENCH_FAILED=$1 \
		python3 "$TOP/bench/notes.py" --record "$run/run.json"
}
run_json ""
failed=0
for b in $(seq 1 "$boots"); do
	dir=$run
	[ "$boots" = 1 ] || dir=$run/boot$b
	mkdir -p "$dir"
	[ "$boots" = 1 ] || log "bench: boot $b of $boots"
	rc=0
	"$TOP/scripts/qemu.sh" --job bench --timeout "${BENCH_TIMEOUT:-1200}" --name bench >/dev/null || rc=$?
	res=$RESULTS/bench-results.txt
	cp "$RESULTS/bench-serial.log" "$dir/bench-serial.log" 2>/dev/null || true
	if [ ! -f "$res" ]; then
		warn "bench: boot $b returned no output (qemu.sh exit $rc): see $dir/bench-serial.log"
		failed=1
		continue
	fi
	cp "$res" "$dir/bench-results.txt"
	# The readable part: everything but the JSON frames and the marker.
	tr -d '\r' <"$res" | awk '/^@@JSON-BEGIN/ { skip = 1; next } /^@@JSON-END/ { skip = 0; next }
		!skip && !/@@NEWTOD-DONE/'
	tr -d '\r' <"$res" | awk -v dir="$dir" '
		/^@@JSON-BEGIN / { f = dir "/" $2 ".json"; next }
		/^@@JSON-END/ { close(f); f = ""; next }
		f { print > f }'
	want="gtod perf"
	[ "$KARCH" = x86_64 ] || want=gtod # no perf in the i386 guest (bench/run-bench.sh)
	for f in $want; do
		if [ ! -f "$dir/$f.json" ]; then
			warn "bench: boot $b did not return $f JSON (see $dir/bench-results.txt and bench-serial.log)"
			failed=1
		fi
	done
	for j in "$dir"/*.json; do
		[ -e "$j" ] || continue
		if ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$j"; then
			warn "bench: $j is not valid JSON: left out"
			mv "$j" "$j.bad"
			failed=1
		fi
	done
	if [ "$rc" != 0 ]; then
		if grep -q '^FAILED' "$dir/bench-results.txt"; then
			warn "bench: boot $b had failed paths (the FAILED lines above)"
		else
			warn "bench: boot $b: the guest job failed (qemu.sh exit $rc: a timeout, a panic or a kernel warning; see $dir/bench-serial.log)"
		fi
		failed=1
	fi
done
ln -sfn "$(basename "$run")" "$RESULTS/$pfx-latest"
echo
src=0
python3 "$TOP/bench/summary.py" "$run" "$run/ratios.dat" >"$run/summary.txt" || src=$?
cat "$run/summary.txt"
case "$src" in
0) ;;
3) failed=1 ;;
*) die "could not summarise the JSON in $run (bench/summary.py exited $src)" ;;
esac
echo
dbg=$KOUT/arch/x86/entry/vdso/vdso64.so.dbg
[ "$KARCH" = x86_64 ] || dbg=$KOUT/arch/x86/entry/vdso/vdso32.so.dbg
if [ -f "$dbg" ]; then
	printf '\nlength of the gettimeofday read paths (bench/vdso-insns.py, objdump of %s):\n' "${dbg#"$TOP"/}" |
		tee -a "$run/summary.txt"
	python3 "$TOP/bench/vdso-insns.py" "$dbg" __vdso_tod_gettimeofday __vdso_gettimeofday |
		tee -a "$run/summary.txt" || warn "bench/vdso-insns.py failed on $dbg"
fi
log "bench: results in ${run#"$TOP"/} (build/results/$pfx-latest): summary.txt and the JSON"

first=$run
[ "$boots" = 1 ] || first=$run/boot1
if [ -f "$first/gtod.json" ] && command -v gnuplot >/dev/null; then
	dat=$run/gtod.dat
	python3 - "$first/gtod.json" >"$dat" <<'PY'
import json, sys
paths = [p for p in json.load(open(sys.argv[1]))["paths"] if not p.get("failed")]
t2 = {p["name"]: p["median_ns"] for p in paths if p["threads"] == 2}
for p in paths:
    if p["threads"] == 1:
        print(p["name"], p["median_ns"], p["min_ns"], p["max_ns"], t2.get(p["name"], 0))
PY
	sdat=$run/sections.dat
	python3 - "$first" >"$sdat" <<'PY'
import glob, json, os, sys
def p(sec, q):
    acc = 0
    for floor, c in sec["buckets"]:
        acc += c
        if acc >= q * sec["count"]:
            return floor
    return 0
for f in sorted(glob.glob(os.path.join(sys.argv[1], "sections-*.json"))):
    s = {x["name"]: x for x in json.load(open(f))["sections"]}
    row = [os.path.basename(f)[len("sections-"):-len(".json")]]
    for n in ("tod_tick_page", "stock_tick_seq", "stock_tick_vdso"):
        row += [p(s[n], 0.5) if n in s and s[n]["count"] else 0,
                p(s[n], 0.99) if n in s and s[n]["count"] else 0]
    print(*row)
PY
	panels=1
	[ -s "$sdat" ] && panels=2
	gnuplot <<GP || warn "gnuplot failed; the JSON is still in $run"
set terminal svg size 900,$((480 * panels)) dynamic font "sans,11"
set output "$run/gtod.svg"
set multiplot layout $panels,1
set title "bench/gtod: ns per call (QEMU TCG: compare ratios, not absolute ns)"
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.6 border -1
set ylabel "ns per call (median, min-max)"
set xtics rotate by -30 noenhanced
set grid ytics
set key top left
plot "$dat" using 2:3:4:xtic(1) title "1 thread", "" using 5:5:5 title "2 threads (median)"
if ($panels == 2) {
	set title "write sections: how long readers are held, ns (p50 bars, p99 whiskers; QEMU TCG)"
	set ylabel "ns"
	set xtics norotate
	plot "$sdat" using 2:2:3:xtic(1) title "core tick: vsyscall page odd", \
		"" using 4:4:5 title "stock tick: tk_core.seq odd", \
		"" using 6:6:7 title "stock: vDSO data odd"
}
unset multiplot
GP
	if [ -f "$run/gtod.svg" ]; then
		log "bench: chart in ${run#"$TOP"/}/gtod.svg"
	fi
fi
# Every boot's ratios side by side, the targets as circles: ratios.svg
# (NOTES.md shows it, make bench-notes) and ratios.png.
if [ -s "$run/ratios.dat" ] && command -v gnuplot >/dev/null; then
	nboots=$(awk 'NR == 1 { print NF - 3; exit }' "$run/ratios.dat")
	cols="\"$run/ratios.dat\" using 3:xtic(1) title \"boot 1\""
	for b in $(seq 2 "$nboots"); do
		cols+=", \"\" using $((b + 2)) title \"boot $b\""
	done
	for term in 'svg size 1000,600 dynamic font "sans,11"' 'pngcairo size 1000,600 font "sans,10"'; do
		ext=svg
		[ "${term%% *}" = svg ] || ext=png
		# gnuplot creates its output at 'set output': remove it when it fails
		gnuplot <<GP || { rm -f "$run/ratios.$ext"; warn "gnuplot failed on $run/ratios.dat (ratios.$ext not drawn); the table is in summary.txt"; }
set terminal $term
set output "$run/ratios.$ext"
set title "make bench, $(basename "$run"): ratios of medians per boot (QEMU TCG, not hardware)"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.7 border -1
set logscale y
set ylabel "ratio of medians (log scale; under 1: the first path is faster)"
set xtics rotate by 30 right noenhanced font ",9"
set bmargin 9
set lmargin 20
set grid ytics
set key top left
set datafile missing "NaN"
plot $cols, "" using 0:2 with points pt 6 ps 1.6 lc rgb "black" title "target (at most)"
GP
	done
	[ -f "$run/ratios.svg" ] && log "bench: ratios of every boot in ${run#"$TOP"/}/ratios.svg and ratios.png"
fi
run_json "$failed"
[ "$failed" = 0 ] || die "make bench: a path failed in the guest (see FAILED above): its figures are not timings"
