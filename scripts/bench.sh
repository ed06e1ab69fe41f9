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
for f in gtod-1t gtod-2t; do
	[ -f "$RESULTS/$f-$stamp.json" ] || die "the guest did not return $f JSON"
	ln -sf "$f-$stamp.json" "$RESULTS/$f.json"
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$RESULTS/$f.json" ||
		die "$RESULTS/$f.json is not valid JSON"
done
# The per-timesource runs (optional: a kernel without the new core has none).
extra=()
for j in "$RESULTS"/gtod-ts-*-"$stamp".json "$RESULTS"/gtod-cs-hpet-"$stamp".json; do
	[ -f "$j" ] || continue
	f=$(basename "$j" "-$stamp.json")
	ln -sf "$f-$stamp.json" "$RESULTS/$f.json"
	extra+=("$RESULTS/$f.json")
done
if [ "${#extra[@]}" -gt 0 ]; then
	echo
	echo "ratios across the per-source runs (medians, 1 thread):"
	python3 - "${extra[@]}" <<'PY' || die "could not read the per-source JSON in $RESULTS"
import json, os, sys
runs = {}
for f in sys.argv[1:]:
    name = os.path.basename(f)[len("gtod-"):-len(".json")]
    runs[name] = {p["name"]: p["median_ns"] for p in json.load(open(f))["paths"]}
for name in sorted(k for k in runs if k.startswith("ts-")):
    r = runs[name]
    if "tod-vdso-cgt" in r and "tod-syscall-cgt" in r:
        print("  %-10s tod-syscall-cgt / tod-vdso-cgt = %6.2f   (tod-vdso-cgt %.1f ns)"
              % (name[3:], r["tod-syscall-cgt"] / r["tod-vdso-cgt"], r["tod-vdso-cgt"]))
hp, cs = runs.get("ts-hpet", {}), runs.get("cs-hpet", {})
if "tod-vdso-cgt" in hp and "stock-syscall-cgt" in cs:
    print("  tod-vdso-cgt on hpet / stock-syscall-cgt with stock on hpet = %.2f"
          % (hp["tod-vdso-cgt"] / cs["stock-syscall-cgt"]))
if "tod-vdso-cgt" in hp and "stock-vdso-cgt" in cs:
    print("  tod-vdso-cgt on hpet / stock-vdso-cgt with stock on hpet = %.2f"
          % (hp["tod-vdso-cgt"] / cs["stock-vdso-cgt"]))
PY
fi
echo
log "bench: JSON in ${RESULTS#"$TOP"/}/gtod-1t.json, gtod-2t.json${extra[*]:+ and per source: gtod-ts-*.json, gtod-cs-hpet.json}"

if command -v gnuplot >/dev/null; then
	dat=$RESULTS/gtod.dat
	python3 - "$RESULTS/gtod-1t.json" "$RESULTS/gtod-2t.json" >"$dat" <<'PY'
import json, sys
one, two = (json.load(open(f)) for f in sys.argv[1:3])
t2 = {p["name"]: p["median_ns"] for p in two["paths"]}
for p in one["paths"]:
    print(p["name"], p["median_ns"], min(p["samples_ns"]), max(p["samples_ns"]), t2.get(p["name"], 0))
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
