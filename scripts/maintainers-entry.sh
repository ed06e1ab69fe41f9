#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Used while rebasing the series in build/linux (git rebase -x): keep the
# MAINTAINERS entry of the new timeofday core listing every file the series
# has added so far, so that checkpatch's "does MAINTAINERS need updating?"
# is answered in the patch that adds the file. Run inside the kernel tree.
set -euo pipefail
title='TIMEOFDAY CORE (NEWTOD)'
files=$(git diff --name-only --diff-filter=A base HEAD | grep -v '^MAINTAINERS$' | LC_ALL=C sort)
[ -n "$files" ] || exit 0
python3 - "$title" "$files" <<'PY'
import subprocess, sys
title, files = sys.argv[1], sys.argv[2].split()


def in_base(path):
    return subprocess.run(["git", "cat-file", "-e", "base:" + path], capture_output=True).returncode == 0


# a directory the series created is listed as a whole (F: dir/), any
# other file on its own
pats = set()
for f in files:
    parts, pat = f.split("/"), f
    for i in range(1, len(parts)):
        if not in_base("/".join(parts[:i])):
            pat = "/".join(parts[:i]) + "/"
            break
    pats.add(pat)
s = open("MAINTAINERS").read()
entry = title + "\nM:\tnewtod developers <newtod@localhost>\nL:\tlinux-kernel@vger.kernel.org\nS:\tMaintained\n" + \
    "".join("F:\t%s\n" % f for f in sorted(pats))
start = s.find("\n" + title + "\n")
if start >= 0:
    end = s.index("\n\n", start + 1)
    s = s[:start + 1] + entry.rstrip("\n") + s[end:]
else:
    anchor = s.index("\nTIMEKEEPING, CLOCKSOURCE CORE, NTP, ALARMTIMER\n")
    end = s.index("\n\n", anchor + 1)
    s = s[:end + 2] + entry + "\n" + s[end + 2:]
open("MAINTAINERS", "w").write(s)
PY
git add MAINTAINERS
git commit -q --amend --no-edit -s
