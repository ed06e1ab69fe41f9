#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise one 'make bench' run: the issue's ratios against their targets.

Reads the JSON of one run directory (build/results/bench-DATE-COMMIT, with
boot1/, boot2/, ... when it made several boots): gtod.json, gtod-ts-*.json,
hyperfine.json, perf.json, sections-*.json (the write sections, the
core's beside stock's) and retries-*.json (vDSO reads that waited or
retried) of each boot. Every ratio is taken from one
process (both paths of a ratio interleaved in the same rounds) and printed
three ways: the ratio of the medians, the median of the per-round ratios
(both paths ran in the same round, in a shuffled order, so this one
cancels drift between rounds), and the ratio of the fastest rounds. With
several boots, each estimator's median over the boots is printed with its
range, and a target is met when most boots met it. Targets are reported,
not asserted: QEMU TCG figures are emulated. A path that failed (errors in
its calls, or system calls on a vDSO path), a boot without figures, or a
target ratio with no value is shown as FAILED and makes the exit status 3.
"""
import glob
import json
import os
import statistics
import sys

if len(sys.argv) not in (2, 3):
    sys.exit("usage: summary.py RUN_DIR [RATIOS_DAT]")
run = sys.argv[1]
# RATIOS_DAT: one line per ratio for gnuplot: a short name, its target (or
# NaN) and the ratio of the medians in each boot (NaN where a boot has none)
ratios_dat = sys.argv[2] if len(sys.argv) == 3 else None
boots = sorted(glob.glob(os.path.join(run, "boot[0-9]*")), key=lambda d: int(d.rsplit("boot", 1)[1]))
if not boots:
    boots = [run]


def load(d, name):
    path = os.path.join(d, name + ".json")
    return json.load(open(path)) if os.path.exists(path) else None


# An i386 guest's run (make bench-i386, from its run.json): the targets are
# x86-64's, set for the 64-bit vDSO; they are shown, not applied.
I386 = str((load(run, "run") or {}).get("command", "")).startswith("make bench-i386")


def index(doc, threads=1):
    """path name -> entry, for one thread count"""
    if not doc:
        return {}
    return {p["name"]: p for p in doc["paths"] if p.get("threads", 1) == threads}


FAILED = "FAILED"


def ratio(a, b):
    """(ratio of medians, median of per-round ratios or None, ratio of minima)"""
    if not a or not b:
        return None
    if a.get("failed") or b.get("failed"):
        return FAILED
    if b["median_ns"] <= 0 or b["min_ns"] <= 0:
        return None
    rm = a["median_ns"] / b["median_ns"]
    sa, sb = a.get("samples_ns"), b.get("samples_ns")
    pr = None
    if sa and sb and len(sa) == len(sb):
        pr = statistics.median(x / y for x, y in zip(sa, sb))
    return rm, pr, a["min_ns"] / b["min_ns"]


def rows_of(d):
    """(name, ratio, target) for one boot"""
    main = load(d, "gtod")
    if not main:
        sys.exit("summary.py: no gtod.json in %s: run 'make bench'" % d)
    one, two = index(main, 1), index(main, 2)
    hpet = index(load(d, "gtod-ts-hpet"))
    return main, [
        ("tod-vdso-gtod / stock-vdso-gtod", ratio(one.get("tod-vdso-gtod"), one.get("stock-vdso-gtod")), 0.9),
        ("tod-vdso-cgt / stock-vdso-cgt", ratio(one.get("tod-vdso-cgt"), one.get("stock-vdso-cgt")), None),
        ("tod-vdso-gtod / rdtsc", ratio(one.get("tod-vdso-gtod"), one.get("rdtsc")), 3.0),
        ("tod-vdso-cgt / rdtsc", ratio(one.get("tod-vdso-cgt"), one.get("rdtsc")), 3.0),
        ("stock-vdso-gtod / rdtsc (reference)", ratio(one.get("stock-vdso-gtod"), one.get("rdtsc")), None),
        ("tod-syscall-cgt / tod-vdso-cgt", ratio(one.get("tod-syscall-cgt"), one.get("tod-vdso-cgt")), None),
        ("both on hpet: tod-vdso-cgt / stock-syscall-cgt",
         ratio(hpet.get("tod-vdso-cgt"), hpet.get("stock-syscall-cgt")), 0.5),
        ("both on hpet: tod-vdso-cgt / stock-vdso-cgt",
         ratio(hpet.get("tod-vdso-cgt"), hpet.get("stock-vdso-cgt")), None),
        ("tod-vdso-gtod NTP active / idle", ratio(one.get("tod-vdso-gtod-ntp"), one.get("tod-vdso-gtod")), 1.02),
        ("tod-vdso-cgt NTP active / idle", ratio(one.get("tod-vdso-cgt-ntp"), one.get("tod-vdso-cgt")), 1.02),
        ("tod-vdso-gtod 2 threads / 1 thread", ratio(two.get("tod-vdso-gtod"), one.get("tod-vdso-gtod")), 1.1),
        ("stock-vdso-gtod 2 threads / 1 thread", ratio(two.get("stock-vdso-gtod"), one.get("stock-vdso-gtod")), None),
        ("tod-vdso-coarse 2 threads / 1 thread (no rdtsc)",
         ratio(two.get("tod-vdso-coarse"), one.get("tod-vdso-coarse")), None),
        ("rdtsc 2 threads / 1 thread (the emulator's floor)", ratio(two.get("rdtsc"), one.get("rdtsc")), None),
    ]


# Targets the emulator decides: under TCG every guest rdtsc takes one QEMU
# lock, so two threads slow a bare rdtsc several times over; the reader
# cannot do better than that floor here (make bench-host measures it on
# the host's CPU). Such a target shows the floor, not MISSED.
EMULATOR_DECIDED = {"tod-vdso-gtod 2 threads / 1 thread"}
EMULATOR_FLOOR = "rdtsc 2 threads / 1 thread (the emulator's floor)"

failed = False
nall = len(boots)
have = []
for d in boots:
    if load(d, "gtod"):
        have.append(d)
    else:
        print("FAILED: %s has no gtod.json (that boot returned no figures)" % d)
        failed = True
if not have:
    sys.exit("summary.py: no gtod.json in %s: run 'make bench'" % run)
# every failed path of every run, also those no ratio uses
for d in have:
    for f in sorted(glob.glob(os.path.join(d, "gtod*.json"))):
        for p in json.load(open(f))["paths"]:
            if p.get("failed"):
                print("FAILED: %s, %s at %d thread(s): %d failed calls" %
                      (os.path.relpath(f, run), p["name"], p.get("threads", 1), p.get("errors", 0)))
                failed = True
boots = have
per_boot = [rows_of(d) for d in boots]
main0 = per_boot[0][0]
nb = len(boots)
print("ratios (%s; QEMU TCG; %d rounds of %d calls per path in a shuffled order, seed%s %s;\n"
      "both paths of a ratio in one process; medians, the median of the per-round ratios,\n"
      "and the ratio of the fastest rounds%s)" %
      ("one boot" if nall == 1 else "%d boots" % nall + ("" if nb == nall else ", %d with figures" % nb),
       main0["rounds"], main0["iters"],
       "" if nb == 1 else "s", ", ".join(str(m.get("seed", "?")) for m, _ in per_boot),
       "" if nb == 1 else "; each: median over the boots [range]"))


def fmt(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "-"
    if len(vals) == 1:
        return "%.2f" % vals[0]
    return "%.2f [%.2f-%.2f]" % (statistics.median(vals), min(vals), max(vals))


if ratios_dat:
    with open(ratios_dat, "w") as out:
        out.write("# ratio target %s\n" % " ".join("boot%d" % (b + 1) for b in range(nb)))
        for i, (name, _, target) in enumerate(per_boot[0][1]):
            rs = [rows[i][1] for _, rows in per_boot]
            if all(r is None or r == FAILED for r in rs):
                continue
            short = name.split(" (")[0].replace("both on hpet: ", "hpet: ")
            out.write('"%s" %s %s\n' % (short, "%.3f" % target if target else "NaN",
                                        " ".join("NaN" if r is None or r == FAILED else "%.4f" % r[0]
                                                 for r in rs)))

w = 9 if nb == 1 else 18
print("  %-50s %*s %*s %*s %8s  %s" % ("ratio", w, "medians", w, "per-round", w, "minima", "target",
                                       "(verdict on the medians)"))
for i, (name, _, target) in enumerate(per_boot[0][1]):
    rs = [rows[i][1] for _, rows in per_boot]
    if any(r == FAILED for r in rs):
        print("  %-50s %*s" % (name, w, FAILED))
        failed = True
        continue
    rs = [r for r in rs if r is not None]
    if not rs:
        if target is not None and not I386:
            print("  %-50s %*s  (a target ratio with no figures)" % (name, w, FAILED))
            failed = True
        else:
            print("  %-50s %*s" % (name, w, "n/a"))
        continue
    rm = statistics.median(r[0] for r in rs)
    verdict = ""
    if target is not None and I386:
        verdict = "(x86-64's target, not applied on i386)"
    elif target is not None and name in EMULATOR_DECIDED:
        floor = [r for _, rows in per_boot for (n, r, _) in rows if n == EMULATOR_FLOOR]
        floor = [f[0] for f in floor if f is not None and f != FAILED]
        verdict = "n/a under TCG: bare rdtsc is %s at 2 threads / 1" % (
            "%.2f" % statistics.median(floor) if floor else "not measured")
    elif target is not None:
        met = sum(r[0] <= target for r in rs)
        verdict = "met" if 2 * met > nall else "MISSED by %.0f%%" % ((rm / target - 1) * 100)
        if nall > 1:
            verdict += " (%d of %d boots met)" % (met, nall)
    print("  %-50s %*s %*s %*s %8s  %s" % (name, w, fmt([r[0] for r in rs]), w, fmt([r[1] for r in rs]),
                                           w, fmt([r[2] for r in rs]),
                                           "<= %.2f" % target if target else "", verdict))

for b, d in enumerate(boots):
    src = {os.path.basename(f)[len("gtod-ts-"):-len(".json")]: index(json.load(open(f)))
           for f in sorted(glob.glob(os.path.join(d, "gtod-ts-*.json")))}
    if not src:
        continue
    print("\nper timesource%s (1 thread, median ns per call; stock paths in the same process,\n"
          "with the stock clocksource on the same counter where it has one)" %
          ("" if nb == 1 else ", boot %d" % (b + 1)))
    cols = ["tod-vdso-gtod", "tod-vdso-cgt", "tod-vdso-coarse", "tod-syscall-cgt", "stock-vdso-cgt",
            "stock-syscall-cgt"]
    print("  %-10s" % "source" + "".join("%18s" % c for c in cols))
    for s, r in src.items():
        print("  %-10s" % s + "".join(
            "%18s" % (FAILED if c in r and r[c].get("failed") else
                      "%.1f" % r[c]["median_ns"] if c in r else "-") for c in cols))
        failed |= any(p.get("failed") for p in r.values())

REF = "stock-vdso-gtod"
for b, d in enumerate(boots):
    hf = load(d, "hyperfine")
    if not hf:
        continue
    res = {r["command"].split("--path ")[1].split()[0]: r for r in hf["results"]}
    print("\nhyperfine%s (whole runs of 2000000 calls, mean +- stddev of %d runs; reference %s)" %
          ("" if nb == 1 else ", boot %d" % (b + 1), len(hf["results"][0]["times"]), REF))
    if REF not in res:
        print("  the reference %s did not run: no ratios" % REF)
        failed = True
        continue
    for p, r in res.items():
        print("  %-20s %8.3f s +- %.3f   %5.2f x %s" % (p, r["mean"], r["stddev"] or 0,
                                                      r["mean"] / res[REF]["mean"], REF))

for b, d in enumerate(boots):
    perf = load(d, "perf")
    if not perf:
        continue
    print("\nsyscalls per call%s (perf stat raw_syscalls:sys_enter, less a run making no calls)" %
          ("" if nb == 1 else ", boot %d" % (b + 1)))
    for p in perf["paths"]:
        print("  %-20s %.4f  %s" % (p["name"], (p["syscalls"] - p["baseline"]) / perf["calls"],
                                    "ok" if p["ok"] else FAILED))
        failed |= not p["ok"]


def quantile(sec, q):
    """The floor of the bucket holding quantile q (quarter octaves: up to 19 % low)."""
    acc = 0
    for floor, c in sec["buckets"]:
        acc += c
        if acc >= q * sec["count"]:
            return floor
    return None


SEC_ROWS = [
    ("tod_tick_page", "core tick: vsyscall page odd"),
    ("stock_tick_seq", "stock tick: tk_core.seq odd"),
    ("stock_tick_vdso", "stock update_vsyscall: vDSO data odd"),
    ("tod_adjtimex_page", "core adjtimex: page odd"),
    ("stock_adjtimex_seq", "stock adjtimex: tk_core.seq odd"),
    ("stock_adjtimex_advance_seq", "stock adjtimex: its advance, seq odd"),
    ("tod_tick_locked", "core tick: tod_lock held"),
    ("stock_tick_locked", "stock tick: timekeeper_lock held"),
    ("tod_adjtimex_locked", "core adjtimex: tod_lock held"),
    ("stock_adjtimex_locked", "stock adjtimex: timekeeper_lock held"),
]
sec_runs = {}  # source -> [ {name: section} per boot ]
for d in boots:
    for f in sorted(glob.glob(os.path.join(d, "sections-*.json"))):
        doc = json.load(open(f))
        sec_runs.setdefault(os.path.basename(f)[len("sections-"):-len(".json")], []).append(
            {x["name"]: x for x in doc["sections"]})
if sec_runs:
    print("\nwrite sections and their cost, ns (CONFIG_NEWTOD_SECTION_STATS; the core and stock on the\n"
          "same counter; every CPU busy, adjtimex 500/s on each clock; p50 and p99 are the floors of\n"
          "their quarter-octave buckets; %s; QEMU TCG: compare, do not quote as hardware)" %
          ("one boot" if nb == 1 else "median over %d boots" % nb))
    for src, runs in sorted(sec_runs.items()):
        print("  %s" % src)
        print("    %-40s %8s %8s %8s %9s %8s" % ("section", "count", "p50", "p99", "max", "mean"))
        stat = {}
        for name, what in SEC_ROWS:
            got = [r[name] for r in runs if name in r and r[name]["count"]]
            if len(got) < len(runs):
                print("    %-40s %8s" % (what, FAILED + " (not counted)"))
                failed = True
                continue
            med = lambda f: statistics.median(f(x) for x in got)
            stat[name] = (med(lambda x: quantile(x, 0.5)), med(lambda x: quantile(x, 0.99)))
            print("    %-40s %8d %8d %8d %9d %8d" % (what, med(lambda x: x["count"]), stat[name][0],
                                                    stat[name][1], med(lambda x: x["max_ns"]),
                                                    med(lambda x: x["sum_ns"] / x["count"])))
        for tod, stock in (("tod_tick_page", "stock_tick_seq"), ("tod_adjtimex_page", "stock_adjtimex_seq")):
            if tod in stat and stock in stat:
                ok = stat[tod][0] <= stat[stock][0] and stat[tod][1] <= stat[stock][1]
                print("    %s <= %s (p50 and p99): %s" % (tod, stock, "met" if ok else "MISSED"))

ret_runs = {}  # source -> [doc per boot]
for d in boots:
    for f in sorted(glob.glob(os.path.join(d, "retries-*.json"))):
        ret_runs.setdefault(os.path.basename(f)[len("retries-"):-len(".json")], []).append(json.load(open(f)))
if ret_runs:
    print("\nvDSO reads that waited or retried, per million (bench/retries: a reader per CPU running the\n"
          "readers' sequence-count loop on the real [vvar] pages, both pages in turn; adjtimex 500/s on\n"
          "each clock; %s)" % ("one boot" if nb == 1 else "median over %d boots" % nb))
    print("  %-10s %14s %14s %12s" % ("source", "tod", "stock", "reads each"))
    for src, docs in sorted(ret_runs.items()):
        bad = [x for x in docs if not x["tod"]["reads"] or not x["stock"]["reads"] or x["adjtimex_errors"]]
        if bad:
            print("  %-10s %14s" % (src, FAILED))
            failed = True
            continue
        per = lambda k: statistics.median(1e6 * x[k]["held"] / x[k]["reads"] for x in docs)
        print("  %-10s %14.1f %14.1f %12d" % (src, per("tod"), per("stock"),
                                             statistics.median(x["tod"]["reads"] for x in docs)))

sys.exit(3 if failed else 0)  # 3: failed paths (1 would be a Python error)
