#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write one 'make bench' run's summary into NOTES.md, and its record.

    notes.py [--allow-dirty] [--allow-failed] RUN_DIR NOTES_MD
    notes.py --record RUN_JSON        (scripts/bench.sh)

The first form replaces what lies between the lines
'<!-- bench-summary:begin -->' and '<!-- bench-summary:end -->' of NOTES_MD
with the tables of RUN_DIR's summary.txt (bench/summary.py's output, as
printed), under the date, commit and command of the run, read from
RUN_DIR/run.json. A table of one boot other than the first ('..., boot 2
(...') is left out of NOTES_MD: the whole summary.txt is copied to
bench/summary-latest.txt beside NOTES_MD, and the section says so. When the
run has ratios.svg (every boot's ratios, drawn by scripts/bench.sh), it is
copied to bench/ratios-latest.svg and shown at the top of the section. Everything outside the
markers is left as it is, so the section is regenerated, never edited by
hand.

The README beside NOTES_MD, when it holds the lines
'<!-- bench-headline:begin -->' and '<!-- bench-headline:end -->', gets
between them the headline: the medians of the ratios
'tod-vdso-gtod / stock-vdso-gtod' and 'both on hpet: tod-vdso-cgt /
stock-syscall-cgt' of the same run, under its date, commit and command.

It refuses, leaving NOTES_MD untouched:
- a run from a tree with uncommitted changes, or from no git tree: it
  names no commit that someone could check out (--allow-dirty quotes it);
- a run that failed or did not finish: its figures are not timings
  (--allow-failed quotes it);
- a NOTES_MD without exactly one pair of markers;
- a README with headline markers, when the summary lacks either ratio.

The second form writes RUN_JSON from the environment scripts/bench.sh
sets (BENCH_DATE, BENCH_COMMIT, BENCH_BOOTS, BENCH_FAILED: '' while the
run is under way, 0 or 1 when it ended), with the command that made the
run: 'make bench', BOOTS, and every setting that changes the guest
(APPEND, QEMU_OPTS, TSC_PARAM, a KOUT other than the default).

Exit status 0, or 1 with a message saying what is wrong.
"""
import json
import os
import re
import shlex
import shutil
import sys
import tempfile

BEGIN = "<!-- bench-summary:begin -->"
CHART = "bench/ratios-latest.svg"
SUMMARY = "bench/summary-latest.txt"
END = "<!-- bench-summary:end -->"
HBEGIN = "<!-- bench-headline:begin -->"
HEND = "<!-- bench-headline:end -->"
# the headline's two ratios: (name in the ratio table, phrase)
HEADLINE = (("tod-vdso-gtod / stock-vdso-gtod", "on the TSC the core's vDSO `gettimeofday` took %sx "
             "the stock vDSO's time"),
            ("both on hpet: tod-vdso-cgt / stock-syscall-cgt", "on the HPET its vDSO "
             "`clock_gettime` %sx the stock system call's"))


def die(msg):
    sys.exit("bench/notes.py: " + msg)


def record(path):
    env = os.environ
    try:
        boots = int(env["BENCH_BOOTS"])
        i386 = env.get("KARCH") == "i386"
        cmd = ["make", "bench-i386" if i386 else "bench"] + ([] if boots == 1 else ["BOOTS=%d" % boots])
        for k in ("APPEND", "QEMU_OPTS", "TSC_PARAM", "KOUT"):
            v = env.get(k)
            if v is None or (v == "" and k != "TSC_PARAM"):
                continue  # TSC_PARAM= (set, empty) drops tsc=reliable: it counts
            if k == "KOUT" and os.path.basename(v.rstrip("/")) == ("kbuild-i386" if i386 else "kbuild"):
                continue  # the default kernel of make bench or make bench-i386
            cmd.append("%s=%s" % (k, shlex.quote(v)))
        failed = env["BENCH_FAILED"]
        doc = {"date": env["BENCH_DATE"], "commit": env["BENCH_COMMIT"], "command": " ".join(cmd),
               "boots": boots, "failed": None if failed == "" else failed != "0"}
    except (KeyError, ValueError) as e:
        die("--record needs BENCH_DATE, BENCH_COMMIT, BENCH_BOOTS (a number) and BENCH_FAILED (%s)" % e)
    with open(path, "w") as f:
        json.dump(doc, f)
        f.write("\n")


args = sys.argv[1:]
if args[:1] == ["--record"]:
    if len(args) != 2:
        die("usage: notes.py --record RUN_JSON")
    record(args[1])
    sys.exit(0)
flags = {a for a in args if a.startswith("--")}
args = [a for a in args if not a.startswith("--")]
if len(args) != 2 or flags - {"--allow-dirty", "--allow-failed"}:
    die("usage: notes.py [--allow-dirty] [--allow-failed] RUN_DIR NOTES_MD")
run, notes = args


def read_text(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        die("%s is missing: run 'make bench' (it writes %s) first" % (path, what))
    except (OSError, UnicodeDecodeError) as e:
        die("cannot read %s: %s" % (path, e))


meta_path = os.path.join(run, "run.json")
summary_path = os.path.join(run, "summary.txt")
try:
    meta = json.loads(read_text(meta_path, "run.json"))
except ValueError as e:
    meta = e
ok = isinstance(meta, dict) and isinstance(meta.get("date"), str) and isinstance(meta.get("commit"), str) \
    and isinstance(meta.get("command"), str) and type(meta.get("boots")) is int and meta["boots"] > 0 \
    and (meta.get("failed") is None or isinstance(meta.get("failed"), bool))
if not ok:
    die("%s is not the run record scripts/bench.sh writes (date, commit, command, boots, failed): "
        "run 'make bench' again" % meta_path)
date, commit, command, boots = meta["date"], meta["commit"], meta["command"], meta["boots"]
if not re.fullmatch(r"[0-9a-f]{7,40}", commit) and "--allow-dirty" not in flags:
    die("the run in %s names no commit to check out (%s: uncommitted changes, or no git tree): "
        "commit, run 'make bench' again, or pass --allow-dirty to quote it anyway" % (run, commit))
if meta["failed"] is not False and "--allow-failed" not in flags:
    die("the run in %s %s: its figures are not timings; run 'make bench' again, or pass "
        "--allow-failed to quote it anyway" % (run, "failed" if meta["failed"] else "did not finish"))
summary = read_text(summary_path, "summary.txt").replace("\r", "")
if not summary.strip():
    die("%s is empty: bench/summary.py printed nothing; run 'make bench' again" % summary_path)

# summary.txt is tables separated by blank lines, each with its title first
tables, cur = [], []
for line in summary.splitlines():
    if line.strip():
        cur.append(line.rstrip())
    elif cur:
        tables.append(cur)
        cur = []
if cur:
    tables.append(cur)

stamp = "%s, commit %s, `%s` (%d boot%s)" % (date, commit, command, boots, "" if boots == 1 else "s")
out = [BEGIN,
       "<!-- generated by bench/notes.py from %s/summary.txt: do not edit; run 'make bench-notes' -->" %
       os.path.basename(os.path.normpath(os.path.realpath(run))),
       "",
       "QEMU TCG: emulated, not hardware. Compare the ratios, not the nanoseconds. Each table is "
       "bench/summary.py's output as printed, verdicts included.",
       ""]
# the chart of every boot's ratios (scripts/bench.sh draws it with gnuplot),
# copied beside NOTES_MD as CHART for NOTES.md and the README to show
chart = os.path.join(run, "ratios.svg")
have_chart = os.path.isfile(chart) and os.path.getsize(chart) > 0
if have_chart:
    out += ["![the ratios of every boot, %s](%s)" % (stamp.replace("`", ""), CHART), ""]
else:
    out += ["(no chart: %s has no ratios.svg, which make bench draws when gnuplot is installed)" %
            os.path.basename(os.path.normpath(os.path.realpath(run))), ""]
# one boot's tables past the first boot's: in SUMMARY, not here
shown = [t for t in tables if not re.search(r", boot ([2-9]|[1-9][0-9]+) \(", t[0])]
out += ["%s; every table below is of this run%s." %
        (stamp, "" if len(shown) == len(tables) else
         ", the per-boot ones of boot 1 (the other boots' are in [%s](%s), the run's whole summary)"
         % (SUMMARY, SUMMARY)), ""]
for t in shown:
    out += ["```"] + t + ["```", ""]
out.append(END)



def markers(lines, begin, end, path):
    b = [i for i, l in enumerate(lines) if l.strip() == begin]
    e = [i for i, l in enumerate(lines) if l.strip() == end]
    if len(b) != 1 or len(e) != 1 or b[0] > e[0]:
        die("%s must hold one '%s' line and, after it, one '%s' line (found %d and %d): "
            "put them where the generated section goes" % (path, begin, end, len(b), len(e)))
    return b[0], e[0]


# the README's headline, from the ratio table's medians
readme = os.path.join(os.path.dirname(os.path.realpath(notes)), "README.md")
readme_new = None
if os.path.isfile(readme):
    rlines = read_text(readme, "its headline").split("\n")
    if any(l.strip() in (HBEGIN, HEND) for l in rlines):
        hb, he = markers(rlines, HBEGIN, HEND, readme)
        parts = []
        for name, phrase in HEADLINE:
            m = [re.match(r"\s*" + re.escape(name) + r"\s+([0-9]+\.[0-9]+)\s", l) for l in summary.splitlines()]
            m = [x for x in m if x]
            if len(m) != 1:
                die("%s has %d ratio lines '%s' (1 expected): the README's headline needs it; "
                    "run 'make bench' again" % (summary_path, len(m), name))
            parts.append(phrase % m[0].group(1))
        head = ("Headline: %s, and %s (medians over %s; ratios under QEMU TCG, not hardware "
                "nanoseconds; `%s` at commit %s, %s; [NOTES.md](NOTES.md) has every figure with "
                "its command)." % (parts[0], parts[1], "one boot" if boots == 1 else "%d boots" % boots,
                                   command, commit, date))
        readme_new = "\n".join(rlines[:hb + 1] + [head] + rlines[he:])

lines = read_text(notes, "its bench-summary markers").split("\n")
b, e = markers(lines, BEGIN, END, notes)
new = "\n".join(lines[:b] + out + lines[e + 1:])
# the chart goes in (or an older one out) only once NOTES_MD is written:
# copied to a temporary file first, renamed after NOTES_MD's rename
# the same for the whole summary
base = os.path.dirname(os.path.realpath(notes))
copies = [(summary_path, os.path.join(base, SUMMARY))]
dest = os.path.join(base, CHART)
if have_chart:
    copies.append((chart, dest))
staged = []     # (temporary file, its destination)


def unstage():
    for t, _ in staged:
        os.unlink(t)


for src, dst in copies:
    try:
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        cfd, t = tempfile.mkstemp(dir=os.path.dirname(dst), prefix=".latest.")
        os.close(cfd)
        staged.append((t, dst))
        shutil.copyfile(src, t)
    except OSError as e:
        unstage()
        die("cannot copy %s beside %s: %s" % (src, dst, e))
# write beside the real file (through a symlink), keep its mode, then rename
target = os.path.realpath(notes)
try:
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".notes.")
except OSError as e:
    unstage()
    die("cannot write beside %s: %s" % (notes, e))
try:
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(new)
        f.flush()
        os.fsync(f.fileno())
    os.chmod(tmp, os.stat(target).st_mode & 0o7777)
    os.replace(tmp, target)
except OSError as e:
    os.unlink(tmp)
    unstage()
    die("cannot write %s: %s" % (notes, e))
try:
    for t, dst in staged:
        os.chmod(t, 0o644)
        os.replace(t, dst)
    if not have_chart and os.path.exists(dest):
        os.unlink(dest)     # an older run's chart would pass for this run's
except OSError as e:
    die("%s is written, but its chart or summary beside it is not: %s" % (notes, e))
if readme_new is not None:
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(readme), prefix=".readme.")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(readme_new)
        os.chmod(tmp, os.stat(readme).st_mode & 0o7777)
        os.replace(tmp, readme)
    except OSError as e:
        die("%s is written, but %s's headline is not: %s" % (notes, readme, e))
    print("bench/notes.py: %s: the headline from the same run" % readme)
print("bench/notes.py: %s: %d tables from %s (%d in it, all in %s)" % (notes, len(tables), run, len(shown), SUMMARY))
