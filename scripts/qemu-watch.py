#!/usr/bin/env python3
"""Watch a guest through QEMU's human monitor while it runs.

Usage: qemu-watch.py MONITOR_SOCKET ASK_AFTER_S STATUS_FILE WAKE_FILE [S3_LIMIT_S]

- Every 5 s, ask the monitor for the VM's status. A guest in S3 ("VM
  status: paused (suspended)") for S3_LIMIT_S seconds in a row (60 by
  default) had no wake event: its RTC alarm fired before S3 was entered
  (the suspend took longer than the alarm under TCG), and nothing will wake
  it. Wake it (system_wakeup) and append a line to WAKE_FILE, so the run
  goes on and the harness can say how often it had to (scripts/check-run.sh
  --s3-wakeups).
- ASK_AFTER_S seconds after the start (10 s before QEMU's timeout), write
  the VM's status and its CPUs' registers to STATUS_FILE and stop: a guest
  that does not finish says nothing on a console it has suspended.

Exits 0 when killed or when done; a monitor that does not answer is retried.
"""
import socket
import sys
import time

POLL_S = 5


def ask(path, *cmds):
    """Send each command to the monitor; the text it answered, or None."""
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(2)
        s.connect(path)
    except OSError:
        return None

    def drain():
        out = b""
        try:
            while True:
                d = s.recv(65536)
                if not d:
                    break
                out += d
        except (socket.timeout, OSError):
            pass
        text = out.decode(errors="replace").replace("\r", "")
        # the monitor echoes each key it is sent, with escape codes: drop that
        return "\n".join(l for l in text.split("\n") if "\x1b" not in l)

    try:
        drain()
        answers = []
        for c in cmds:
            s.sendall((c + "\n").encode())
            answers.append(drain())
        return "\n".join(answers)
    except OSError:
        return None
    finally:
        s.close()


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit("usage: qemu-watch.py MONITOR_SOCKET ASK_AFTER_S STATUS_FILE WAKE_FILE [S3_LIMIT_S]")
    mon, ask_after, status_file, wake_file = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
    limit = float(sys.argv[5]) if len(sys.argv) == 6 else 60.0
    start = time.monotonic()
    since = None
    while True:
        now = time.monotonic()
        if now - start >= ask_after:
            text = ask(mon, "info status", "info registers -a")
            with open(status_file, "w") as f:
                f.write(text if text is not None else "the monitor did not answer\n")
            return
        status = ask(mon, "info status") or ""
        if "suspended" in status:
            since = now if since is None else since
            if now - since >= limit:
                ask(mon, "system_wakeup")
                with open(wake_file, "a") as f:
                    f.write("%.0f s after the start: in S3 for %.0f s with no wake event; woke it (system_wakeup)\n"
                            % (now - start, now - since))
                since = None
        else:
            since = None
        time.sleep(min(POLL_S, max(0.1, ask_after - (time.monotonic() - start))))


if __name__ == "__main__":
    main()
