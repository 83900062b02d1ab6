"""The state directory of ``kep-sync serve``: what the last runs saw, and the lock against a second instance.

Layout of ``--state-dir`` (default ``$KEP_SYNC_STATE_DIR``, else
``$XDG_STATE_HOME/kep-sync``, else ``~/.local/state/kep-sync``; the container
sets ``/var/lib/kep-sync``):

- ``state.json``: a :class:`State` as JSON, replaced atomically on every write;
- ``lock``: held with ``fcntl.flock`` by the running service; holds its pid.

The state only makes polls cheap and feeds ``kep-sync health``. Losing it costs
one full run: the marker in the pull request body prevents duplicate pull requests.
"""

from __future__ import annotations

import datetime
import fcntl
import json
import os
import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails

from bot.errors import KepSyncError
from bot.fileread import STATE_BYTES, read_regular
from bot.publish.files import write_atomic
from bot.redact import redact_values

STATE_FILE = "state.json"
LOCK_FILE = "lock"


class StateError(KepSyncError):
    """The state directory cannot be used (unwritable, or locked by another instance). Exit code 1."""


class RunRecord(BaseModel):
    """One finished run: ``run_id``, ``started``/``finished`` (ISO 8601 UTC), ``result``
    (``ok``; ``skipped``: no upstream change; ``blocked``: a commit kep-sync did not make on the bot
    branch stopped the publish, a human must act; ``failed``), ``revision``, ``changes``,
    ``pull_request`` URL (``None`` when there is none), ``http_requests`` and ``error`` (the redacted message
    of a failed run). ``revision``, ``changes`` (proposed), ``applied`` (written or committed: 0 for
    ``publish: none``), ``pull_request`` and ``error`` are those of the run's report
    (:func:`bot.commands.sync.run_summary`)."""

    #: a key kep-sync does not write, or a value of the wrong type, makes the file "not a kep-sync state"
    model_config = ConfigDict(extra="forbid", strict=True)

    run_id: str
    started: str
    finished: str
    result: str
    revision: str = ""
    changes: int = 0
    applied: int = 0
    pull_request: str | None = None
    http_requests: int = 0
    error: str = ""

    @property
    def ok(self) -> bool:
        """True for ``ok``, ``skipped`` and ``blocked``: the service works (a blocked publish waits for a human;
        it is logged as a warning, not a failure)."""
        return self.result in ("ok", "skipped", "blocked")


class State(BaseModel):
    """Everything kept between runs.

    - ``source``/``revision``/``revision_etag``: the ``enhancements`` value, the commit SHA
      of the last successful full run and the HTTP ETag of its revision lookup (``github:`` only);
    - ``config``: fingerprint of the settings of that run (a new config means a full run);
    - ``release_notes_etags``: ``{url: ETag}`` of the release notes of that run;
    - ``service_started``: when the running service started (ISO 8601 UTC);
    - ``service_process``: that service's :func:`bot.service.liveness.process_identity` (``""``: unknown);
    - ``wiki``: :func:`bot.service.job.wiki_marker` of the wiki after the last successful full run;
    - ``last_run`` and ``last_success``: :class:`RunRecord` of the latest run and latest good run.
    """

    #: ``{}`` is an empty state (no run yet); ``{"foo": 1}`` is not a kep-sync state (corrupt)
    model_config = ConfigDict(extra="forbid", strict=True)

    source: str = ""
    revision: str = ""
    revision_etag: str = ""
    config: str = ""
    release_notes_etags: dict[str, str] = Field(default_factory=dict)
    service_started: str = ""
    service_process: str = ""
    wiki: str = ""
    last_run: RunRecord | None = None
    last_success: RunRecord | None = None


def record_run(
    state: State, summary: dict, *, run_id: str, started: str, finished: str, http_requests: int = 0
) -> RunRecord:
    """Store in ``state`` the run whose :func:`bot.commands.sync.run_summary` is ``summary`` as ``last_run``
    (and ``last_success`` when :attr:`RunRecord.ok`); ``started``/``finished``: ISO 8601 UTC. Returns the record."""
    record = RunRecord(
        run_id=run_id,
        started=started,
        finished=finished,
        result=summary["result"],
        http_requests=http_requests,
        error=summary["error"] or "",
        revision=summary["revision"],
        changes=summary["changes"],
        applied=summary["applied"],
        pull_request=summary["pull_request"],
    )
    state.last_run = record
    if record.ok:
        state.last_success = record
    return record


def default_state_dir() -> Path:
    """``$KEP_SYNC_STATE_DIR``, else ``$XDG_STATE_HOME/kep-sync``, else ``~/.local/state/kep-sync``."""
    if os.environ.get("KEP_SYNC_STATE_DIR"):
        return Path(os.environ["KEP_SYNC_STATE_DIR"])
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "kep-sync"


class StateUnreadable(StateError):
    """``state.json`` (or its directory) cannot be read: permission denied, a name too long, an I/O error.
    The file may be fine, so it is never kept aside; ``path`` names it."""

    def __init__(self, path: Path, why: str):
        super().__init__(f"{path}: state file cannot be read ({why})")
        self.path = path


class StateCorrupt(StateError):
    """``state.json`` was read but is not a :class:`State` (not UTF-8, not JSON, wrong shape).
    ``path`` names it; the message says why."""

    def __init__(self, path: Path, why: str):
        super().__init__(f"{path}: state file is corrupt ({why})")
        self.path = path


def read_state(state_dir: Path) -> State:
    """The state in ``state_dir``; an empty :class:`State` when the file is missing or empty.

    Raises :class:`StateCorrupt` when the file was read but is unusable, :class:`StateUnreadable` when it
    cannot be read (``kep-sync health`` reports either).
    """
    path = state_dir / STATE_FILE
    try:
        raw = read_regular(path, STATE_BYTES)
    except FileNotFoundError:
        return State()
    except OSError as exc:
        raise StateUnreadable(path, exc.strerror or str(exc)) from None
    if not raw.strip():
        return State()
    try:
        return State.model_validate(json.loads(raw.decode("utf-8")))
    except UnicodeDecodeError as exc:
        raise StateCorrupt(path, f"not UTF-8 at byte {exc.start}") from None
    except RecursionError:
        raise StateCorrupt(path, "not a kep-sync state: nested too deeply") from None
    except ValueError as exc:  # json.JSONDecodeError, pydantic's ValidationError, int() of too many digits
        if isinstance(exc, json.JSONDecodeError):
            why = f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        elif isinstance(exc, ValidationError):
            why = "not a kep-sync state: " + "; ".join(_state_error(e) for e in exc.errors()[:3])
        elif "digits" in str(exc):  # "Exceeds the limit (4300 digits) for integer string conversion ..."
            why = f"not a kep-sync state: a number of more than {sys.get_int_max_str_digits()} digits"
        else:
            why = f"not a kep-sync state: {str(exc)[:200]}"
        raise StateCorrupt(path, why) from None


def _state_error(err: ErrorDetails) -> str:
    """One validation error of ``state.json`` in plain words (:func:`bot.config.error_message`)."""
    from bot.config import error_key, error_message

    message = error_message(err).replace("a mapping of settings (key: value lines)", "a JSON object")
    return f"{error_key(err['loc'])}: {message}"


def set_aside(path: Path, now: datetime.datetime) -> Path:
    """Rename the corrupt file ``path`` to ``<name>.corrupt-<UTC time>`` (kept for a human); returns the new path.

    Raises :class:`StateError` when it cannot be renamed, so it is never overwritten instead.
    """
    target = path.with_name(f"{path.name}.corrupt-{now.astimezone(datetime.UTC):%Y%m%dT%H%M%SZ}")
    n = 1
    while target.exists():
        n += 1
        target = target.with_name(f"{target.name.split('~')[0]}~{n}")
    try:
        os.rename(path, target)
    except OSError as exc:
        raise StateError(
            f"{path}: state file is corrupt and cannot be kept aside as {target.name}: {exc.strerror or exc}"
        ) from None
    return target


def load_state(state_dir: Path, *, log=None) -> State:
    """The state in ``state_dir`` for the service: :func:`read_state`, but a corrupt file is kept aside
    (:func:`set_aside`), reported as an ``error`` line on ``log`` (a structlog logger) and replaced by an
    empty :class:`State` (one full run). Raises :class:`StateError` when it cannot be kept aside."""
    try:
        return read_state(state_dir)
    except StateCorrupt as exc:
        kept = set_aside(exc.path, datetime.datetime.now(datetime.UTC))
        if log is not None:
            log.error("state file corrupt; kept aside, starting from an empty state", error=str(exc), kept_as=str(kept))
        return State()


def make_state_dir(state_dir: Path) -> None:
    """Create ``state_dir`` (and its parents) if missing.

    Raises :class:`StateError` naming it when it exists but is not a directory, or cannot be created.
    """
    try:
        if state_dir.exists() and not state_dir.is_dir():
            raise StateError(f"{state_dir}: not a directory (the state directory: --state-dir or $KEP_SYNC_STATE_DIR)")
        state_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StateError(f"{state_dir}: cannot create the state directory: {exc.strerror or exc}") from None


def save_state(state_dir: Path, state: State) -> None:
    """Write ``state`` to ``state_dir/state.json`` atomically (temp file + rename).

    Every known credential is redacted from the text (:func:`bot.redact.redact_values`).
    Raises :class:`StateError` naming the path when the directory cannot be written.
    """
    path = state_dir / STATE_FILE
    data = redact_values(json.dumps(state.model_dump(), indent=2, sort_keys=True) + "\n").encode("utf-8")
    make_state_dir(state_dir)
    try:
        if not path.exists():
            path.touch(mode=0o644)
        write_atomic(path, data)
    except (OSError, KepSyncError) as exc:
        raise StateError(f"{path}: cannot write state: {getattr(exc, 'strerror', None) or exc}") from None


class InstanceLock:
    """An exclusive ``fcntl.flock`` on ``state_dir/lock``, so two services never share a state directory.

    Use as a context manager; :meth:`acquire` raises :class:`StateError` naming the
    holder's pid when another process holds the lock. The kernel drops the lock
    when the holder dies, so a stale lock file never blocks a restart.
    """

    def __init__(self, state_dir: Path):
        self.path = state_dir / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock without waiting; raises :class:`StateError` if it is held or cannot be created."""
        make_state_dir(self.path.parent)
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StateError(f"{self.path}: cannot open lock file: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise StateError(
                f"{self.path}: another kep-sync instance (pid {holder}) holds the lock of this state directory"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        """Drop the lock (idempotent)."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> InstanceLock:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()
