#!/usr/bin/env bash
# Used while rebasing the series in build/linux (git rebase -x): keep the
# MAINTAINERS entry of the new timeofday core listing every file the series
# has added so far, so that checkpatch's "does MAINTAINERS need updating?"
# is answered in the patch that adds the file. Run inside the kernel tree.
set -euo pipefail
title='TIMEOFDAY CORE (NEWTOD)'
files=$(git diff --name-only --diff-filter=A base HEAD | grep -v '^MAINTAINERS$' | LC_ALL=C sort)
[ -n "$files" ] || exit 0
python3 - "$title" "$files" <<'PY'
import re, sys
title, files = sys.argv[1], sys.argv[2].split()
s = open("MAINTAINERS").read()
entry = title + "\nL:\tlinux-kernel@vger.kernel.org\nS:\tExperimental\n" + \
    "".join("F:\t%s\n" % f for f in files)
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
