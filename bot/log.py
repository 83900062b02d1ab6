"""Logging on stderr (structlog), with secrets redacted from every event and from every rendered line.

Two formats: ``json`` (one JSON object per line, for machines: the default when stderr is not a terminal)
and ``text`` (one readable line per event, structlog's ConsoleRenderer: the default on a terminal; colors
only on a terminal and when ``$NO_COLOR`` is unset or empty, https://no-color.org).
"""

from __future__ import annotations

import logging
import os
import sys
import threading

import structlog
from structlog.typing import EventDict, WrappedLogger

from bot.progress import is_terminal, log_format
from bot.redact import redact


def _redact(_logger: WrappedLogger, _name: str, event: EventDict) -> EventDict:
    return {k: redact(v) if isinstance(v, str) else v for k, v in event.items()}


class LineLogger:
    """A structlog logger that writes each rendered line to ``file`` (default: ``sys.stderr`` at each write)
    and flushes it. A write that fails (a closed pipe, a full disk, a closed file: ``OSError``,
    ``ValueError``) drops the line: losing the log never stops the program, its stop path included."""

    _lock = threading.Lock()

    def __init__(self, file=None):
        self._file = file

    def msg(self, message: str) -> None:
        try:
            with self._lock:
                stream = self._file or sys.stderr
                if stream is not None:  # None: stderr closed (``2>&-``)
                    print(message, file=stream, flush=True)
        except (OSError, ValueError):
            pass

    log = debug = info = warn = warning = err = error = critical = exception = fatal = failure = msg


def _redacted(renderer):
    """``renderer`` whose rendered line is redacted as a whole (values inside lists and mappings included)."""

    def render(logger, name, event):
        return redact(renderer(logger, name, event))

    return render


def _renderer(fmt: str):
    if fmt == "text":
        colors = is_terminal(sys.stderr) and not os.environ.get("NO_COLOR")
        return structlog.dev.ConsoleRenderer(colors=colors, exception_formatter=structlog.dev.plain_traceback)
    return structlog.processors.JSONRenderer(sort_keys=True)


def configure(level: str = "info", fmt: str | None = None) -> None:
    """Send structlog events to stderr, one line each, in the format :func:`log_format` picks for ``fmt``:
    a JSON object ``{"event", "level", "timestamp", ...}`` or a readable ``TIME [level] event key=value`` line."""
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            _redact,
            _redacted(_renderer(log_format(fmt))),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        # Look sys.stderr up per write, not once: tests and daemons may swap it.
        logger_factory=lambda *_args: LineLogger(),
        cache_logger_on_first_use=False,
    )


def get_logger(**bound) -> structlog.typing.FilteringBoundLogger:
    """A logger with ``bound`` key/values on every event."""
    return structlog.get_logger().bind(**bound)
