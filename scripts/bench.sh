#!/usr/bin/env bash
# Host side of 'make bench': one guest boot running bench/run-bench.sh; the
# table is printed, the raw figures saved as JSON under $RESULTS and drawn as
# a bar chart (gnuplot, SVG) when gnuplot is there.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

rc=0
"$TOP/scripts/qemu.sh" --job bench --timeout "${BENCH_TIMEOUT:-1200}" --name bench >/dev/null || rc=$?
res=$RESULTS/bench-results.txt
[ -f "$res" ] || die "no bench output: see $RESULTS/bench-serial.log"
# The readable part: everything but the JSON frames and the marker.
tr -d '\r' <"$res" | awk '/^@@JSON-BEGIN/ { skip = 1; next } /^@@JSON-END/ { skip = 0; next }
	!skip && !/@@NEWTOD-DONE/'
[ "$rc" = 0 ] || die "the bench run failed (see above and $RESULTS/bench-serial.log)"

stamp=$(date -u +%Y%m%dT%H%M%SZ)
tr -d '\r' <"$res" | awk -v dir="$RESULTS" -v stamp="$stamp" '
	/^@@JSON-BEGIN / { f = dir "/" $2 "-" stamp ".json"; next }
	/^@@JSON-END/ { close(f); f = ""; next }
	f { print > f }'
for f in gtod hyperfine; do
	[ -f "$RESULTS/$f-$stamp.json" ] || die "the guest did not return $f JSON (see $RESULTS/bench-serial.log)"
done
# Every frame the guest sent: gtod, hyperfine, gtod-ts-NAME, gtod-cs-hpet.
jsons=()
for j in "$RESULTS"/*-"$stamp".json; do
	f=$(basename "$j" "-$stamp.json")
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$j" || die "$j is not valid JSON"
	ln -sf "$f-$stamp.json" "$RESULTS/$f.json"
	jsons+=("$RESULTS/$f.json")
done
echo
python3 "$TOP/bench/summary.py" "$RESULTS" | tee "$RESULTS/bench-summary.txt" ||
	die "could not summarise the JSON in $RESULTS (bench/summary.py)"
echo
dbg=$KOUT/arch/x86/entry/vdso/vdso64.so.dbg
if [ -f "$dbg" ]; then
	echo
	echo "length of the gettimeofday read paths (bench/vdso-insns.py, objdump of ${dbg#"$TOP"/}):"
	python3 "$TOP/bench/vdso-insns.py" "$dbg" __vdso_tod_gettimeofday __vdso_gettimeofday |
		tee -a "$RESULTS/bench-summary.txt" || warn "bench/vdso-insns.py failed on $dbg"
fi
names=$(for j in "${jsons[@]}"; do basename "$j"; done | tr '\n' ' ')
log "bench: JSON in ${RESULTS#"$TOP"/}/: $names(summary: bench-summary.txt)"

if command -v gnuplot >/dev/null; then
	dat=$RESULTS/gtod.dat
	python3 - "$RESULTS/gtod.json" >"$dat" <<'PY'
import json, sys
paths = json.load(open(sys.argv[1]))["paths"]
t2 = {p["name"]: p["median_ns"] for p in paths if p["threads"] == 2}
for p in paths:
    if p["threads"] == 1:
        print(p["name"], p["median_ns"], p["min_ns"], p["max_ns"], t2.get(p["name"], 0))
PY
	rm -f "$RESULTS/gtod.svg"
	gnuplot <<GP || warn "gnuplot failed; the JSON is still in $RESULTS"
set terminal svg size 900,480 dynamic font "sans,11"
set output "$RESULTS/gtod.svg"
set title "bench/gtod: ns per call (QEMU TCG: compare ratios, not absolute ns)"
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.6 border -1
set ylabel "ns per call (median, min-max)"
set xtics rotate by -30 noenhanced
set grid ytics
set key top left
plot "$dat" using 2:3:4:xtic(1) title "1 thread", "" using 5:5:5 title "2 threads (median)"
GP
	if [ -f "$RESULTS/gtod.svg" ]; then
		log "bench: chart in ${RESULTS#"$TOP"/}/gtod.svg"
	fi
fi
