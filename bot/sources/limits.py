"""Bounds for downloads: a byte cap and an overall deadline, checked while a stream is read.

Used for every body kep-sync reads from the network (the ``github:`` ref lookup
and the tarball) and for the decompressed tarball stream, so that an endless,
dripping or highly compressible answer ends in a :class:`SourceError` instead
of exhausting memory or time.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable

from bot.errors import SourceError


class Deadline:
    """An overall time limit of ``seconds`` (monotonic ``clock``, seconds) starting now.

    :meth:`check` raises :class:`SourceError` ``"{what}: not finished within {seconds} s, aborted"``
    once it has passed. A single blocking read is not interrupted: it is bounded by
    the HTTP client's read timeout (:data:`bot.http.TIMEOUT_SECONDS`) and the
    deadline is checked as soon as it returns.
    """

    def __init__(self, seconds: float, what: str, clock: Callable[[], float] = time.monotonic):
        self.seconds, self.what, self.clock = seconds, what, clock
        self.end = clock() + seconds

    def check(self) -> None:
        """Raise :class:`SourceError` when the deadline has passed."""
        if self.clock() > self.end:
            raise SourceError(f"{self.what}: not finished within {self.seconds:g} s, aborted")


class LimitedReader(io.RawIOBase):
    """A read-only file over ``read_chunk()`` (returns ``b""`` at the end) that fails past ``limit`` bytes.

    Raises :class:`SourceError` ``"{what}: larger than {limit} bytes{unit}, refused"``
    (``unit`` e.g. ``" once decompressed"``) and checks ``deadline`` after every chunk.
    """

    def __init__(
        self,
        read_chunk: Callable[[], bytes],
        limit: int,
        what: str,
        *,
        deadline: Deadline | None = None,
        unit: str = "",
    ):
        super().__init__()
        self._read_chunk, self._limit, self._what, self._unit = read_chunk, limit, what, unit
        self._deadline, self._buf, self.seen = deadline, b"", 0

    def readable(self) -> bool:
        """Always True: this is a read-only stream (io.RawIOBase protocol)."""
        return True

    def readinto(self, b) -> int:
        """Fill ``b`` (a writable buffer) with up to ``len(b)`` bytes; returns the count, 0 at the end.

        Raises :class:`~bot.errors.SourceError` past ``limit`` bytes or the deadline.
        """
        while not self._buf:
            chunk = self._read_chunk()
            if self._deadline is not None:
                self._deadline.check()
            if not chunk:
                return 0
            self.seen += len(chunk)
            if self.seen > self._limit:
                raise SourceError(f"{self._what}: larger than {self._limit} bytes{self._unit}, refused")
            self._buf = chunk
        n = min(len(b), len(self._buf))
        b[:n], self._buf = self._buf[:n], self._buf[n:]
        return n


def chunk_reader(chunks) -> Callable[[], bytes]:
    """``read_chunk`` for :class:`LimitedReader` from an iterator of byte chunks (e.g. ``response.iter_bytes()``)."""
    iterator = (chunk for chunk in chunks if chunk)  # an empty chunk is not the end
    return lambda: next(iterator, b"")
