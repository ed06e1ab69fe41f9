#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Watch a guest through QEMU's human monitor while it runs.

Usage: qemu-watch.py MONITOR_SOCKET SERIAL_LOG ASK_AFTER_S STATUS_FILE WAKE_FILE [S3_LIMIT_S]

- Every 2 s, ask the monitor for the VM's status. A guest in S3 ("VM
  status: paused (suspended)") at every poll for S3_LIMIT_S seconds (60 by
  default), its console (SERIAL_LOG) silent all that time, had no wake
  event: its RTC alarm fired before S3 was entered (the suspend took longer
  than the alarm under TCG), and nothing will wake it. A guest cycling
  through short sleeps prints its resume messages between them, so the
  console tells the two apart where a poll that lands in S3 each time
  would not. Append a line to WAKE_FILE and wake it (system_wakeup), so
  the run goes on and the harness can say how often it had to
  (scripts/check-run.sh --s3-wakeups); a guest still in S3 is woken again
  60 s later.
- ASK_AFTER_S seconds after the start (10 s before QEMU's timeout), write
  the VM's status, its CPUs' registers and their local APICs to STATUS_FILE
  and stop: a guest that does not finish says nothing on a console it has
  suspended, and a vCPU halted with interrupts on and a vector in its IRR
  is one the emulator failed to wake.

Stops when done, or when qemu.sh kills it as QEMU exits; a monitor that does
not answer is asked again at the next poll.
"""
import os
import socket
import sys
import time

POLL_S = 2


def ask(path, *cmds):
    """Send each command to the monitor; the text it answered, or None."""
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(0.5)
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
    if len(sys.argv) not in (6, 7):
        sys.exit("usage: qemu-watch.py MONITOR_SOCKET SERIAL_LOG ASK_AFTER_S STATUS_FILE WAKE_FILE [S3_LIMIT_S]")
    mon, serial, ask_after = sys.argv[1], sys.argv[2], float(sys.argv[3])
    status_file, wake_file = sys.argv[4], sys.argv[5]
    limit = float(sys.argv[6]) if len(sys.argv) == 7 else 60.0
    start = time.monotonic()
    since = None
    size = -1
    while True:
        now = time.monotonic()
        if now - start >= ask_after:
            # each vCPU's local APIC too (IRR, ISR, TPR): a CPU halted with
            # interrupts on and an interrupt pending in its IRR is one the
            # emulator failed to wake
            text = ask(mon, "info status", "info registers -a", "info lapic 0", "info lapic 1")
            with open(status_file, "w") as f:
                f.write(text if text is not None else "the monitor did not answer\n")
            return
        status = ask(mon, "info status") or ""
        try:
            cur = os.path.getsize(serial)
        except OSError:
            cur = -1
        if "suspended" in status and cur == size:
            since = now if since is None else since
            if now - since >= limit:
                # recorded first: a guest that ends its job right after
                # waking stops QEMU, and this watcher with it, at once
                with open(wake_file, "a") as f:
                    f.write("%.0f s after the start: in S3 for %.0f s with a silent console; sent system_wakeup\n"
                            % (now - start, now - since))
                ask(mon, "system_wakeup")
                since = None
        else:
            since = None
        size = cur
        time.sleep(min(POLL_S, max(0.1, ask_after - (time.monotonic() - start))))


if __name__ == "__main__":
    main()
