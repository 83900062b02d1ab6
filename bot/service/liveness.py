"""Which process is the service: an identity that a later ``kep-sync health`` can check is still running.

The identity is ``PID:START`` where START is the process start time in clock ticks since boot (field 22 of
``/proc/PID/stat``, proc(5)) followed by the boot id (``/proc/sys/kernel/random/boot_id``): a pid reused by
another process, or the same pid after a reboot, is a different identity. ``""`` where ``/proc`` is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

_PROC = Path("/proc")


def process_identity(pid: int | None = None) -> str:
    """``"PID:STARTTICKS@BOOTID"`` of process ``pid`` (default: this one); ``""`` when it is not running or
    ``/proc`` cannot say."""
    pid = os.getpid() if pid is None else pid
    try:
        stat = (_PROC / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
        boot = (_PROC / "sys" / "kernel" / "random" / "boot_id").read_text(encoding="ascii").strip()
    except OSError:
        return ""
    fields = stat.rpartition(")")[2].split()  # the command name may hold spaces and ')'
    return f"{pid}:{fields[19]}@{boot}" if len(fields) > 19 else ""


def still_running(identity: str) -> bool | None:
    """True when the process of ``identity`` (:func:`process_identity`) is running now, False when not,
    ``None`` when this machine cannot tell (no ``/proc``, no identity recorded)."""
    pid, _, _ = identity.partition(":")
    if not identity or not pid.isdigit() or not (_PROC / "self" / "stat").exists():
        return None
    return process_identity(int(pid)) == identity
