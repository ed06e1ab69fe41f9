#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instructions on the common path of vDSO entry points, from objdump.

usage: vdso-insns.py VDSO64_SO_DBG FUNCTION...

Walks each function's disassembly from its entry, along the path a TSC
machine takes: conditional branches not taken (the kernel lays out the
likely case as the fall-through), except the branch over the seconds carry
loop (cmp $999999999; jbe), which is taken (nanoseconds below 10^9);
unconditional jumps followed; it stops at ret or at a jump out of the
function (a tail call to a slow path, which the common path does not take).
nops (alternatives padding) are not counted; rdtsc_ordered() counts as one
instruction before alternatives patching. A static count: a guide to the
length of the read path that the emulator's timings cannot give. A walk
that comes back to an instruction it has seen took a wait loop for the
common path (a layout with the likely case as the taken branch, as gcc
builds the 32-bit vDSO): it prints n/a rather than a wrong count.
"""
import re
import subprocess
import sys

if len(sys.argv) < 3:
    sys.exit(__doc__.strip().splitlines()[2])
dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", sys.argv[1]],
                     capture_output=True, text=True, check=True).stdout


def insns(name):
    m = re.search(r"<%s>:\n(.*?)\n\n" % re.escape(name), dis, re.S)
    if not m:
        sys.exit("vdso-insns.py: no function %s in %s" % (name, sys.argv[1]))
    out = []
    for line in m.group(1).splitlines():
        mm = re.match(r"\s+([0-9a-f]+):\s+(\S+)\s*(.*)", line)
        if mm:
            out.append((int(mm.group(1), 16), mm.group(2), mm.group(3)))
    return out


def common_path(name):
    ins = insns(name)
    at = {a: i for i, (a, _, _) in enumerate(ins)}
    i, n, seen = 0, 0, set()
    while i < len(ins):
        if i in seen:
            return None  # a loop: not the common path (see the top)
        seen.add(i)
        _, op, arg = ins[i]
        if op != "nop":
            n += 1
        if op == "ret":
            return n
        target = arg.split()[0] if arg else ""
        if op == "jbe" and i and "$0x3b9ac9ff" in ins[i - 1][2]:
            i = at[int(target, 16)]
            continue
        if op == "jmp":
            t = int(target, 16)
            if t not in at:
                return n
            i = at[t]
            continue
        i += 1
    return n


for fn in sys.argv[2:]:
    n = common_path(fn)
    if n is None:
        print("  %-28s n/a (the walk entered a loop: likely case laid out as the taken branch)" % fn)
    else:
        print("  %-28s %3d instructions on the common path" % (fn, n))
