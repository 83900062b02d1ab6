"""Helpers for the command-line tests: the sync command line of the ``work`` fixture (tests/commands/conftest.py)
and its one-line outputs."""

from __future__ import annotations

import json

#: ``kep-sync sync`` over the ``work`` fixture's ``enh/`` and ``wiki/m.md``.
SYNC = ["sync", "--enhancements", "enh", "--wiki", "wiki", "--page", "m.md"]


def log_event(err: str) -> dict:
    """The one JSON log line in ``err`` (fails unless there is exactly one line)."""
    (line,) = err.splitlines()
    return json.loads(line)


def error_line(capsys) -> str:
    """The one line on stderr of a command that printed nothing on stdout."""
    out, err = capsys.readouterr()
    assert out == ""
    (line,) = err.splitlines()
    return line


def shown(path) -> str:
    """How an error message names a configured path: its repr, cut after 80 characters with ``…``
    (``bot.config.shown``); a temporary directory is long enough to be cut under pytest-xdist."""
    text = repr(str(path))
    return text if len(text) <= 80 else text[:80] + "…"
