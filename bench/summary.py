#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise one 'make bench' boot: the issue's ratios against their targets.

Reads the JSON the guest returned (build/results/gtod.json, gtod-ts-*.json,
gtod-cs-hpet.json, hyperfine.json) and prints each ratio two ways: the ratio
of the medians, and the median of the per-round ratios (the paths of one
round run back to back, so this one cancels drift between rounds). Targets
are reported, not asserted: QEMU TCG figures are emulated.
"""
import glob
import json
import os
import re
import statistics
import sys

if len(sys.argv) != 2:
    sys.exit("usage: summary.py RESULTS_DIR")
res = sys.argv[1]


def load(name):
    path = os.path.join(res, name + ".json")
    return json.load(open(path)) if os.path.exists(path) else None


def index(doc, threads=1):
    """path name -> entry, for one thread count"""
    if not doc:
        return {}
    return {p["name"]: p for p in doc["paths"] if p.get("threads", 1) == threads}


main = load("gtod")
if not main:
    sys.exit("summary.py: no gtod.json in %s: run 'make bench'" % res)
one, two = index(main, 1), index(main, 2)
src = {os.path.basename(f)[len("gtod-ts-"):-len(".json")]: index(json.load(open(f)))
       for f in sorted(glob.glob(os.path.join(res, "gtod-ts-*.json")))
       if not re.search(r"-\d{8}T\d{6}Z\.json$", f)}  # the links, not the stamped runs
cs_hpet = index(load("gtod-cs-hpet"))


def ratio(a, b):
    """(ratio of medians, median of per-round ratios or None, ratio of minima)"""
    if not a or not b or b["median_ns"] <= 0:
        return None
    rm = a["median_ns"] / b["median_ns"]
    sa, sb = a.get("samples_ns"), b.get("samples_ns")
    pr = None
    if sa and sb and len(sa) == len(sb):
        pr = statistics.median(x / y for x, y in zip(sa, sb))
    return rm, pr, a["min_ns"] / b["min_ns"]


rows = [
    ("tod-vdso-gtod / stock-vdso-gtod", ratio(one.get("tod-vdso-gtod"), one.get("stock-vdso-gtod")), 0.9),
    ("tod-vdso-cgt / stock-vdso-cgt", ratio(one.get("tod-vdso-cgt"), one.get("stock-vdso-cgt")), None),
    ("tod-vdso-gtod / rdtsc", ratio(one.get("tod-vdso-gtod"), one.get("rdtsc")), 3.0),
    ("tod-vdso-cgt / rdtsc", ratio(one.get("tod-vdso-cgt"), one.get("rdtsc")), 3.0),
    ("stock-vdso-gtod / rdtsc (reference)", ratio(one.get("stock-vdso-gtod"), one.get("rdtsc")), None),
    ("tod-syscall-cgt / tod-vdso-cgt", ratio(one.get("tod-syscall-cgt"), one.get("tod-vdso-cgt")), None),
    ("tod vDSO on hpet / stock syscall on hpet",
     ratio(src.get("hpet", {}).get("tod-vdso-cgt"), cs_hpet.get("stock-syscall-cgt")), 0.5),
    ("tod-vdso-gtod NTP active / idle", ratio(one.get("tod-vdso-gtod-ntp"), one.get("tod-vdso-gtod")), 1.02),
    ("tod-vdso-cgt NTP active / idle", ratio(one.get("tod-vdso-cgt-ntp"), one.get("tod-vdso-cgt")), 1.02),
    ("tod-vdso-gtod 2 threads / 1 thread", ratio(two.get("tod-vdso-gtod"), one.get("tod-vdso-gtod")), 1.1),
    ("stock-vdso-gtod 2 threads / 1 thread", ratio(two.get("stock-vdso-gtod"), one.get("stock-vdso-gtod")), None),
    ("tod-vdso-coarse 2 threads / 1 thread (no rdtsc)",
     ratio(two.get("tod-vdso-coarse"), one.get("tod-vdso-coarse")), None),
    ("rdtsc 2 threads / 1 thread (the emulator's floor)", ratio(two.get("rdtsc"), one.get("rdtsc")), None),
]
print("ratios (one boot, QEMU TCG; %d rounds of %d calls per path; medians, the median of the\n"
      "per-round ratios, and the ratio of the fastest rounds)" % (main["rounds"], main["iters"]))
print("  %-50s %9s %9s %9s %8s  %s" % ("ratio", "medians", "per-round", "minima", "target",
                                       "(verdict on the medians)"))
for name, r, target in rows:
    if r is None:
        print("  %-50s %9s" % (name, "n/a"))
        continue
    rm, pr, mn = r
    verdict = ""
    if target is not None:
        verdict = "met" if rm <= target else "MISSED by %.0f%%" % ((rm / target - 1) * 100)
    print("  %-50s %9.2f %9s %9.2f %8s  %s" % (name, rm, "%.2f" % pr if pr is not None else "-", mn,
                                               "<= %.2f" % target if target else "", verdict))

if src:
    print("\nper timesource (tod paths, 1 thread, median ns per call)")
    cols = ["tod-vdso-gtod", "tod-vdso-cgt", "tod-vdso-coarse", "tod-syscall-cgt"]
    print("  %-10s" % "source" + "".join("%17s" % c for c in cols))
    for s, r in src.items():
        print("  %-10s" % s + "".join("%17s" % ("%.1f" % r[c]["median_ns"] if c in r else "-")
                                      for c in cols))
if cs_hpet:
    print("  stock paths with the stock clocksource on hpet: " +
          ", ".join("%s %.1f" % (n, p["median_ns"]) for n, p in cs_hpet.items()))

hf = load("hyperfine")
if hf:
    print("\nhyperfine (whole runs, mean +- stddev of %d runs)" % len(hf["results"][0]["times"]))
    ref = hf["results"][0]
    for r in hf["results"]:
        print("  %-60s %8.3f s +- %.3f   %5.2f x the first" %
              (r["command"].replace("/bench/gtod ", ""), r["mean"], r["stddev"] or 0, r["mean"] / ref["mean"]))
