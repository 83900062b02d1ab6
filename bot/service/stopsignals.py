"""The signals that stop ``kep-sync serve`` cleanly, and blocking them early (no imports beyond the stdlib)."""

from __future__ import annotations

import signal

#: SIGTERM, SIGINT and SIGHUP (terminal closed, ``kill -HUP``: nothing is reloaded) stop the service.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def block_stop_signals() -> None:
    """Block :data:`STOP_SIGNALS` in this thread (threads started later inherit it): a stop signal that
    arrives before ``serve`` has set up its handling stays pending, and ``serve`` takes it with
    ``sigwait`` and exits 0 with its lock released, instead of dying with 143 on the default action."""
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
