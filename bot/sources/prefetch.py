"""Read the enhancements snapshot in a forked worker process while the command goes on importing.

A dry run from a local source is CPU-bound in two independent halves: parsing every kep.yaml with
libyaml (~0.1 s for the 654 real files) and importing and running the rest (the planning modules,
markdown-it-py, structlog, reading and planning the pages). On a machine with a second core the
first half can run there: :func:`start` forks a child as soon as the config names the source, the
child runs ``load()`` and sends the pickled result back through a pipe, and :meth:`Pending.result`
collects it when the command needs the snapshot.

The result is the serial one by construction: whenever the worker cannot be used (no ``os.fork``,
another thread already running, the child failed, was killed or sent something unreadable),
:meth:`Pending.result` calls ``load()`` in the calling process and returns or raises what it gives;
so an error (a missing source, an unreadable repository) is raised by the parent, with the same
message, never reported from the child. Only plain Python values travel (the
:class:`~bot.model.snapshot.Snapshot` NamedTuples pickle as they are).

The child inherits a copy of everything (the structlog config included) and leaves with
``os._exit``: no ``atexit`` handler, no flush of stdio buffers the parent owns. Not for a process
with threads (``kep-sync serve``): forking a threaded process copies locks held by other threads.
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Pending(Generic[T]):
    """The value of ``load()``, being computed by a forked child (``pid``, reading end ``fd``) or not at all
    (``pid == 0``: :meth:`result` calls ``load()``)."""

    def __init__(self, load: Callable[[], T], pid: int = 0, fd: int = -1) -> None:
        self._load, self.pid, self._fd = load, pid, fd

    @property
    def forked(self) -> bool:
        """True while a child computes the value (False after :meth:`result` or :meth:`close`, or without one)."""
        return self.pid > 0

    def result(self) -> T:
        """The value: the child's when it sent one, else ``load()`` run here (which may raise)."""
        value = self._collect()
        return value[0] if value is not None else self._load()

    def _collect(self) -> tuple[T] | None:
        if not self.forked:
            return None
        data = b""
        try:
            with os.fdopen(self._fd, "rb") as pipe:
                self._fd = -1
                data = pipe.read()
        except OSError:
            data = b""
        finally:
            status = self._reap()
        if status != 0 or not data:
            return None
        try:
            return (pickle.loads(data),)
        except Exception:  # a truncated or corrupt message: compute it here instead
            return None

    def _reap(self) -> int:
        pid, self.pid = self.pid, 0
        try:
            return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        except ChildProcessError:
            return -1

    def close(self) -> None:
        """Stop and reap a child whose value is no longer wanted (idempotent; nothing to do after :meth:`result`)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if self.forked:
            try:
                os.kill(self.pid, 9)
            except ProcessLookupError:
                pass
            self._reap()


def can_fork() -> bool:
    """True when forking is safe here: ``os.fork`` exists and this process runs one thread."""
    if not hasattr(os, "fork"):
        return False
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


def start(load: Callable[[], T], *, fork: bool | None = None) -> Pending[T]:
    """Start computing ``load()`` in a forked child; ``fork`` False (or :func:`can_fork` False) runs nothing now,
    :meth:`Pending.result` then calls ``load()`` itself. ``load`` must return a picklable value."""
    if fork is False or not can_fork():
        return Pending(load)
    read_fd, write_fd = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return Pending(load)
    if pid == 0:  # the child: compute, send, leave without running the parent's exit handlers
        code = 1
        try:
            os.close(read_fd)
            data = pickle.dumps(load(), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_fd, "wb") as pipe:
                pipe.write(data)
            code = 0
        except BaseException:  # noqa: BLE001 - the parent computes it again and raises the error itself
            pass
        finally:
            os._exit(code)
    os.close(write_fd)
    return Pending(load, pid, read_fd)
