#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The guest tests' numeric limits against the figures the runs printed.

Usage: scripts/limits.py [--notes NOTES.md --stamp TEXT] RESULTS_DIR...

Each RESULTS_DIR is a make test results directory (build/results of a
clone: test-BOOT-results.txt files), one run each. For every check below,
the figure and the limit are read from the case lines the tests print,
in every boot of every run; the table gives the limit (the tightest the
lines printed, and the loosest when they differ), the worst figure (the
one closest to its limit), the ratio limit / worst, and in how many runs
and case lines the check was found. A check no run printed says so.
Markdown on stdout; with --notes, written into NOTES.md between its
'<!-- limits:begin -->' and '<!-- limits:end -->' markers, under TEXT
(which runs, their commits, the date and the command).
"""
import argparse
import glob
import os
import re
import sys

NUM = r'([-+]?[0-9]+(?:\.[0-9]+)?)'

# name, regex on the case line (after "ok N "), figure group(s), limit group,
# unit, how the figure is judged: 'abs' (|x| against the limit), 'abs500'
# (|x| - 500 against the limit: a slew of +-500 ppm) or 'max' (x against
# the limit, x <= 0 expected)
CHECKS = [
    ('tod rate vs MONOTONIC_RAW, stock on the same counter (tod_core)',
     r'^\w+: rate vs CLOCK_MONOTONIC_RAW \(stock clocksource \w+\) over \d+ s: ' + NUM + r' ppm \(limit ' + NUM + r'\)',
     (1,), 2, 'ppm', 'abs'),
    ('tod rate vs MONOTONIC_RAW through the vDSO (tod_vdso agree)',
     r'^vDSO CLOCK_TOD_REALTIME rate vs CLOCK_MONOTONIC_RAW .* over \d+ s: ' + NUM + r' ppm \(limit ' + NUM,
     (1,), 2, 'ppm', 'abs'),
    ('tod rate per hotplug segment (tod_hotplug)',
     r'^CLOCK_TOD_MONOTONIC rate within ' + NUM + r' ppm of the raw clock in every segment \(worst ' + NUM,
     (2,), 1, 'ppm', 'abs'),
    ('tod REALTIME - stock REALTIME, continuous source (tod_vdso agree)',
     r'^vDSO CLOCK_TOD_REALTIME - stock CLOCK_REALTIME, \d+ samples: from ' + NUM + r' to ' + NUM + r' ns \(limits ' + NUM + r', ' + NUM,
     (1, 2), 4, 'ns', 'abs'),
    ('tod MONOTONIC - BOOTTIME - calibration gap, continuous source (tod_boot)',
     r"^CLOCK_TOD_MONOTONIC - CLOCK_BOOTTIME - stock's calibration gap \(.*\), \d+ samples: from " + NUM + r' to ' + NUM + r' ns \(limits ' + NUM + r', ' + NUM,
     (1, 2), 3, 'ns', 'abs'),
    ('switch storm: most ahead of earlier readings + elapsed (tod_vdso switch)',
     r'^CLOCK_TOD_(?:MONOTONIC|REALTIME): .*\(most ahead ' + NUM + r' ns, allowed at the end ' + NUM,
     (1,), 2, 'ns', 'max'),
    ('switch storm: loss per switch, counting sources (tod_vdso switch)',
     r'^a switch loses at most ' + NUM + r' us.*between tsc, hpet, acpi_pm, pit ' + NUM + r' to ' + NUM + r' us',
     (3,), 1, 'us', 'abs'),
    ('switch storm: loss of a round trip through jiffies (tod_vdso switch)',
     r'^a switch loses at most .*a round trip ' + NUM + r' to ' + NUM + r' us \(at most ' + NUM + r' us\)',
     (1, 2), 3, 'us', 'abs'),
    ('a stalled switch: loss (tod_unregister stall)',
     r'^\d+ switches \S+ -> \S+ .*lose ' + NUM + r' to ' + NUM + r' us \(at most ' + NUM + r' lost',
     (2,), 3, 'us', 'abs'),
    ('y2038: most ahead of the elapsed time (tod_vdso y2038)',
     r'^most ahead of the elapsed time: ' + NUM + r' ns \(limit ' + NUM + r'( ms)?',
     (1,), 2, 'ns', 'max'),
    ('ADJ_FREQUENCY / ADJ_TICK rate error (tod_ntp)',
     r'^ADJ_(?:FREQUENCY|TICK) .*\(error ' + NUM + r', limit ' + NUM,
     (1,), 2, 'ppm', 'abs'),
    ('rate fit residual RMS (tod_ntp)',
     r'^ADJ_(?:FREQUENCY|TICK) .*residual RMS ' + NUM + r' ns \(limit ' + NUM,
     (1,), 2, 'ns', 'abs'),
    ('single-shot lands within (tod_ntp)',
     r'^single-shot \S+ us lands ' + NUM + r' ns from .*\(limit ' + NUM + r'( us| ns)',
     (1,), 2, 'ns', 'abs'),
    ('single-shot passes its target by (tod_ntp)',
     r'^single-shot \S+ us passes its target by ' + NUM + r' ns at most \(limit ' + NUM + r'( us| ns)',
     (1,), 2, 'ns', 'abs'),
    ('phc2sys RMS (tod_phc)',
     r'^phc2sys holds \S+ to CLOCK_REALTIME: last \d+ s RMS ' + NUM + r' ns \(limit ' + NUM,
     (1,), 2, 'ns', 'abs'),
    ('phc2sys largest offset (tod_phc)',
     r'^phc2sys holds .* max ' + NUM + r' ns \(limit ' + NUM + r'( us)?\)',
     (1,), 2, 'ns', 'abs'),
    ('safety-timer gap (tod_hotplug)',
     r'^safety timer: .* largest gap ' + NUM + r' s \(limit ' + NUM + r' s',
     (1,), 2, 's', 'abs'),
    ('single-shot slew rate, off 500 ppm (tod_ntp)',
     r'^single-shot \S+ us slews at [-+]?' + NUM + r' ppm \(limit [-+]?500 \+- ' + NUM + r'\)',
     (1,), 2, 'ppm', 'abs500'),
    ('adjtimex time field: tod - stock from their offset (tod_adjtimex)',
     r'^field time: tod - stock at most ' + NUM + r' ns from their offset .*\(limit ' + NUM + r'\)',
     (1,), 2, 'ns', 'abs'),
    ('fuzz: tod - stock once restored (tod_fuzz)',
     r'^restored: freq .* tod ' + NUM + r' ms from stock \(limit ' + NUM + r' ms\)',
     (1,), 2, 'ms', 'abs'),
    ('idle on acpi_pm (tod_boot idle)',
     r'^idle \d+ s: CLOCK_TOD_MONOTONIC vs MONOTONIC_RAW ' + NUM + r' ppm \(limit ' + NUM,
     (1,), 2, 'ppm', 'abs'),
]

# a last group ' us', ' ms' or ' ns' after the limit: the limit's unit, the
# figure being in ns
SCALE = {' us': 1e3, ' ns': 1.0, ' ms': 1e6}


def scan(dirs):
    found = {c[0]: [] for c in CHECKS}
    runs = {c[0]: set() for c in CHECKS}
    for run, d in enumerate(dirs):
        for path in sorted(glob.glob(os.path.join(d, 'test-*-results.txt'))):
            boot = os.path.basename(path)[len('test-'):-len('-results.txt')]
            with open(path, errors='replace') as f:
                for line in f:
                    # a case line, or a diagnostic the run ends with
                    m = (re.match(r'^#\s+(?:ok|not ok) \d+ (.*)$', line) or
                         re.match(r'^#\s+#\s+(field time: .*)$', line))
                    if not m:
                        continue
                    text = m.group(1)
                    for name, rx, figs, lim, unit, how in CHECKS:
                        mm = re.search(rx, text)
                        if not mm:
                            continue
                        limit = abs(float(mm.group(lim)))
                        groups = mm.groups()
                        if groups and groups[-1] is not None and groups[-1] in SCALE:
                            limit *= SCALE[groups[-1]]
                        for g in figs:
                            x = float(mm.group(g))
                            if how == 'abs500':
                                x = x - 500.0
                            found[name].append((x, limit, boot, run))
                        runs[name].add(run)
    return found, runs


def judge(vals, how):
    # the figure closest to its limit: largest |x| / limit ('abs'), or
    # largest x / limit ('max', a figure <= 0 is the expected one)
    def key(v):
        x, limit = v[0], v[1]
        return (x if how == 'max' else abs(x)) / limit if limit else 0
    return max(vals, key=key)


BEGIN = '<!-- limits:begin -->'
END = '<!-- limits:end -->'


def table(dirs):
    found, runs = scan(dirs)
    out = ['| check | limit | worst seen (boot) | limit / worst | runs, lines |', '|---|---|---|---|---|']
    for name, rx, figs, lim, unit, how in CHECKS:
        vals = found[name]
        if not vals:
            out.append(f'| {name} | - | not printed by these runs | - | 0, 0 |')
            continue
        x, limit, boot, _ = judge(vals, how)
        lims = sorted({v[1] for v in vals})
        ltxt = f'{lims[0]:g}' if len(lims) == 1 else f'{lims[0]:g}-{lims[-1]:g}'
        worst = x if how == 'max' else abs(x)
        ratio = f'{limit / worst:.1f}' if worst > 0 else 'figure <= 0'
        out.append(f'| {name} | {ltxt} {unit} | {x:+g} {unit} ({boot}) | {ratio} | {len(runs[name])}, {len(vals)} |')
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('dirs', nargs='+', metavar='RESULTS_DIR', help='build/results of a make test run')
    ap.add_argument('--notes', help="write the table into this NOTES.md, between its limits markers")
    ap.add_argument('--stamp', help='with --notes: which runs, when, by what command')
    args = ap.parse_args()
    dirs, notes, stamp = args.dirs, args.notes, args.stamp
    if notes and not stamp:
        ap.error('--notes needs --stamp: say which runs the table is of, when, and by what command')
    for d in dirs:
        if not glob.glob(os.path.join(d, 'test-*-results.txt')):
            sys.exit(f'{d}: no test-*-results.txt: give the build/results directory of a make test run')
    out = table(dirs)
    if not notes:
        print('\n'.join(out))
        return 0
    try:
        text = open(notes, encoding='utf-8').read()
    except OSError as e:
        sys.exit(f'limits.py: cannot read {notes}: {e.strerror}')
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        sys.exit(f"limits.py: {notes} needs one '{BEGIN}' ... '{END}' pair where the table goes")
    a, b = text.index(BEGIN), text.index(END) + len(END)
    block = [BEGIN, '<!-- generated by scripts/limits.py: do not edit; run it again -->', stamp, ''] + out + [END]
    open(notes, 'w', encoding='utf-8').write(text[:a] + '\n'.join(block) + text[b:])
    print(f'limits.py: wrote the limits table of {notes}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
