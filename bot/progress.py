"""Progress lines for people: the steps that take seconds (a clone, a fetch, a download, reading the history)
say on stderr what they do and how long it took, on a terminal only (a log read by a machine gets none).

A leaf module (no structlog): :mod:`bot.cli.main` turns it on before it starts the snapshot worker, whose clone
then reports too. Also where the log format is decided (:func:`log_format`), for :mod:`bot.log`.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator

from bot.redact import redact

_enabled = False


#: The environment variable that picks the log format when ``--log-format`` is not given (the container image
#: sets ``json``: its logs are JSON lines with a terminal attached too).
LOG_FORMAT_ENV = "KEP_SYNC_LOG_FORMAT"
LOG_FORMATS = ("auto", "json", "text")


def log_format(wanted: str | None = None) -> str:
    """``json`` or ``text``: ``wanted`` (``--log-format``: ``json``, ``text``, ``auto``), else (``None``) the
    value of :data:`LOG_FORMAT_ENV`; ``auto`` (and an unset or unknown value, which ``kep-sync`` refuses at
    start): ``text`` when stderr is a terminal, else ``json``."""
    if wanted is None:
        wanted = os.environ.get(LOG_FORMAT_ENV, "")
    if wanted in ("json", "text"):
        return wanted
    return "text" if is_terminal(sys.stderr) else "json"


def is_terminal(stream) -> bool:
    """True when ``stream`` is an open terminal."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed, or not a file
        return False


def enable(fmt: str | None = None) -> None:
    """Progress lines on when the log format for ``fmt`` is ``text`` and stderr is a terminal, else off."""
    global _enabled
    _enabled = log_format(fmt) == "text" and is_terminal(sys.stderr)


@contextlib.contextmanager
def step(what: str, hint: str = "") -> Iterator[None]:
    """Around a slow step: ``kep-sync: WHAT (HINT) ...`` before, ``kep-sync: WHAT: done in N.N s`` after (or
    ``failed after N.N s``), on stderr, redacted; nothing when progress is off (:func:`enable`)."""
    if not _enabled:
        yield
        return
    _say(f"kep-sync: {what}{f' ({hint})' if hint else ''} ...")
    start = time.monotonic()
    try:
        yield
    except BaseException:
        _say(f"kep-sync: {what}: failed after {time.monotonic() - start:.1f} s")
        raise
    _say(f"kep-sync: {what}: done in {time.monotonic() - start:.1f} s")


def _say(line: str) -> None:
    try:
        print(redact(line), file=sys.stderr, flush=True)
    except (OSError, ValueError):  # stderr gone: progress is never worth failing a run
        pass
