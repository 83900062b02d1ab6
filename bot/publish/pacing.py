"""Process-wide pacing of GitHub write requests (POST, PATCH, PUT, DELETE).

GitHub's secondary rate limits count per user or App installation, not per repository ("Best practices
for using the REST API": wait at least one second between mutating requests). One process that lands
many targets must therefore pace its writes across all of them, not per client. :data:`PACER` is that
one pacer; :func:`install` puts it in front of every PyGithub connection of the process (through
``Requester.injectConnectionClasses``, PyGithub's hook for its connection classes).

Each client's credentials object tells the pacer the interval of the request it is about to send
(:func:`set_interval`, called from :meth:`bot.publish.auth._Counted.authentication`): a client made
with ``seconds_between_writes=0`` (the tests) is not paced, and its writes do not delay the others.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from github.Requester import HTTPRequestsConnectionClass, HTTPSRequestsConnectionClass, Requester

#: Methods that do not change anything on GitHub; every other method is a write.
READS = frozenset({"GET", "HEAD", "OPTIONS"})


class WritePacer:
    """Keeps every write at least ``interval`` seconds after the end of the previous write of the process.

    ``clock`` (seconds, monotonic) and ``sleep`` are injectable for tests; ``waits`` lists every pause made.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep):
        self.clock, self.sleep = clock, sleep
        self.last_write: float | None = None
        self.waits: list[float] = []
        self._lock = threading.Lock()

    def before(self, verb: str, interval: float) -> None:
        """Wait, when ``verb`` is a write, until ``interval`` seconds have passed since the last write ended."""
        if verb.upper() in READS or interval <= 0:
            return
        with self._lock:
            wait = 0.0 if self.last_write is None else self.last_write + interval - self.clock()
            if wait > 0:
                self.waits.append(wait)
                self.sleep(wait)

    def after(self, verb: str) -> None:
        """Note the end of a request; a write starts the next interval."""
        if verb.upper() not in READS:
            with self._lock:
                self.last_write = self.clock()


#: The pacer of this process.
PACER = WritePacer()
_interval = threading.local()


def set_interval(seconds: float) -> None:
    """The pacing interval of the next request sent from this thread (its client's setting)."""
    _interval.seconds = seconds


def _paced(base: type) -> type:
    class Paced(base):
        def getresponse(self):
            verb, interval = self.verb, getattr(_interval, "seconds", 0.0)
            _interval.seconds = 0.0  # a client that does not set it (not kep-sync's) is not paced
            PACER.before(verb, interval)
            try:
                return super().getresponse()
            finally:
                PACER.after(verb)

    Paced.__name__ = f"Paced{base.__name__}"
    return Paced


_CLASSES = (_paced(HTTPRequestsConnectionClass), _paced(HTTPSRequestsConnectionClass))


def install() -> None:
    """Route every PyGithub request of the process through :data:`PACER` (idempotent)."""
    Requester.injectConnectionClasses(*_CLASSES)
