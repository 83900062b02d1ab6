"""JSON-lines logging on stderr (structlog), with secrets redacted from every event."""

from __future__ import annotations

import logging
import sys
import threading

import structlog

from bot.redact import redact


def _redact(_logger, _name, event: dict) -> dict:
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
                print(message, file=self._file or sys.stderr, flush=True)
        except (OSError, ValueError):
            pass

    log = debug = info = warn = warning = err = error = critical = exception = fatal = failure = msg


def configure(level: str = "info") -> None:
    """Send structlog events to stderr as one JSON object per line: ``{"event", "level", "timestamp", ...}``."""
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            _redact,
            structlog.processors.JSONRenderer(sort_keys=True),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        # Look sys.stderr up per write, not once: tests and daemons may swap it.
        logger_factory=lambda *_args: LineLogger(),
        cache_logger_on_first_use=False,
    )


def get_logger(**bound) -> structlog.typing.FilteringBoundLogger:
    """A logger with ``bound`` key/values on every event."""
    return structlog.get_logger().bind(**bound)
