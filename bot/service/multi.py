"""Run many targets (:mod:`bot.commands.targets`) in one process: upstream read once, each wiki on its own.

:class:`SharedSources` reads the enhancements snapshot, its history (provenance and renames), the release
notes and the feature-gate lifecycle once per process and hands the same objects to every target (they
share ``enhancements``, ``cache_dir`` and the source settings by construction). Each target then plans and
lands on its own wiki; its state, lock, report and changelog live in its own state directory
(:func:`bot.commands.targets.state_dir_of`). A target that fails is recorded as failed and the next one runs.
GitHub writes are paced process-wide (:mod:`bot.publish.pacing`), not per target.
"""

from __future__ import annotations

import datetime
import time
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import structlog

from bot.commands.targets import Target, state_dir_of
from bot.config import Config
from bot.errors import ConfigError, KepSyncError, ReportNotWritten, UsageError
from bot.http import RequestCounter
from bot.log import get_logger
from bot.redact import error_text, redact

if TYPE_CHECKING:
    from bot.commands.sync import SyncOutcome
    from bot.model.gates import Lifecycle
    from bot.model.history.provenance import History
    from bot.model.history.renames import Rename
    from bot.model.snapshot import Snapshot
    from bot.sources.enhancements import Revision
    from bot.sources.upstream import GitHubUpstream


class SharedSources:
    """The upstream of every target, each part read on first use and kept for the process.

    ``config``: any target's settings (the source settings are the same for all); ``counter`` counts the
    HTTP requests; ``load``: what reads the snapshot (default :func:`bot.commands.sync.load_enhancements`). A
    failure to read the snapshot is kept too: every target fails with it, and it is read only once.
    """

    def __init__(
        self,
        config: Config,
        counter: RequestCounter | None = None,
        load: Callable[[Config, RequestCounter | None], Snapshot] | None = None,
    ):
        from bot.commands.sync import load_enhancements

        self.config, self.counter = config, counter
        self._load = load or (lambda config, counter: load_enhancements(config, counter, self.upstream()))
        self._own_load = load is None  # provenance asks the upstream reader only when the snapshot came from it
        self._snapshot: Snapshot | KepSyncError | None = None
        self._history: (
            tuple[
                Callable[[Mapping[str, Collection[str]], Collection[str]], History] | None,
                dict[tuple[int, str], Rename],
            ]
            | None
        ) = None
        self._notes = None
        self._gates: Callable[[Collection[str]], Lifecycle] | None = None
        self._upstream: GitHubUpstream | None = None
        self._revision: Revision | KepSyncError | None = None
        self._read: dict[str, bool] = {}

    def upstream(self):
        """The run-level reader of a ``github:`` source (:func:`bot.commands.sync.open_upstream`: incremental, cached by
        commit; one probe for every target), ``None`` for another kind of source."""
        if "upstream" not in self._read:
            from bot.commands.sync import open_upstream

            self._read["upstream"], self._upstream = True, open_upstream(self.config, self.counter)
        return self._upstream

    def revision(self):
        """The source's revision now (:func:`bot.sources.enhancements.current_revision`: a ``git ls-remote``,
        a checkout's ``HEAD``, a tarball's header), asked once per process and handed to every target's poll;
        raises the :class:`~bot.errors.KepSyncError` of that one ask for each target. (A ``github:`` source
        is probed by :meth:`upstream` instead.)"""
        if "revision" not in self._read:
            from bot.http import make_client
            from bot.sources.enhancements import current_revision

            try:
                with make_client(None, counter=self.counter) as client:
                    self._revision = current_revision(
                        self.config.enhancements, client, api_url=self.config.github.api_url
                    )
            except KepSyncError as exc:
                self._revision = exc
            self._read["revision"] = True
        if isinstance(self._revision, KepSyncError):
            raise self._revision
        return self._revision

    def snapshot(self) -> Snapshot:
        """The snapshot; raises the :class:`~bot.errors.KepSyncError` of the one attempt to read it."""
        if self._snapshot is None:
            try:
                self._snapshot = self._load(self.config, self.counter)
            except KepSyncError as exc:
                self._snapshot = exc
        if isinstance(self._snapshot, KepSyncError):
            raise self._snapshot
        return self._snapshot

    def check(self) -> None:
        """Read the snapshot now; raises its :class:`~bot.errors.ConfigError` or :class:`~bot.errors.UsageError`
        (a source that is misconfigured: exit 2 before any target runs, as for one target). Any other failure
        is kept: every target fails with it (:meth:`snapshot`)."""
        try:
            self.snapshot()
        except (ConfigError, UsageError):
            raise
        except KepSyncError:
            pass

    def history(self):
        """``(history loader, renamed KEP directories)`` of :func:`bot.commands.sync.history_loader`, made once."""
        if self._history is None:
            from bot.commands.sync import history_loader

            self._history = history_loader(
                self.config, self.snapshot(), self.counter, self.upstream() if self._own_load else None
            )
        return self._history

    def release_notes(self):
        """:func:`bot.commands.sync.release_notes_loader`, each set of wanted releases read once; ``None`` when off."""
        if "notes" not in self._read:
            from bot.commands.sync import release_notes_loader

            self._read["notes"], self._notes = True, _memo(release_notes_loader(self.config, self.counter))
        return self._notes

    def gates(self):
        """:func:`bot.commands.sync.gate_lifecycle_loader` (it reads the lists once); ``None`` when off."""
        if "gates" not in self._read:
            from bot.commands.sync import gate_lifecycle_loader

            self._read["gates"], self._gates = True, gate_lifecycle_loader(self.config, self.counter)
        return self._gates


def _memo(load):
    """``load(wanted)`` answered once per set of wanted releases (``None``: every release)."""
    if load is None:
        return None
    done: dict = {}

    def once(wanted):
        key = None if wanted is None else frozenset(wanted)
        if key not in done:
            done[key] = load(wanted)
        return done[key]

    return once


def sync_target(
    config: Config, shared: SharedSources, *, only: Collection[int] | None = None, report_path: Path | None = None
) -> SyncOutcome:
    """One target's sync (:func:`bot.commands.sync.sync_snapshot`) on the shared upstream; raises as
    :func:`bot.commands.sync.run_sync` does, after writing the failure report to ``report_path``."""
    from bot.commands.sync import sync_read

    return sync_read(
        config,
        shared.snapshot,
        lambda snapshot: shared.history(),
        shared.counter,
        only=only,
        report_path=report_path,
        release_notes=shared.release_notes(),
        gates=shared.gates(),
    )


class TargetResult(NamedTuple):
    """How one target's run ended: ``result`` (``ok``, ``blocked``, ``skipped`` or ``failed``), the
    ``pull_request`` URL (``None`` when none), the redacted ``error`` (``""`` unless failed), the HTTP
    ``requests`` it sent and its wall time in ``seconds``."""

    name: str
    result: str
    pull_request: str | None = None
    error: str = ""
    requests: int = 0
    seconds: float = 0.0


def run_targets(
    targets: Sequence[Target],
    state_root: Path,
    shared: SharedSources,
    *,
    only: Collection[int] | None = None,
    run: Callable[[Target, Path], dict] | None = None,
) -> list[TargetResult]:
    """Run every target in order, each with its own state directory under ``state_root`` and its lock;
    never raises for a failed target. ``run(target, state_dir)`` returns the run's
    :func:`bot.commands.sync.run_summary` (default: :func:`sync_and_record`)."""
    results = []
    for target in targets:
        before, start = shared.counter.count if shared.counter else 0, time.monotonic()
        state_dir = state_dir_of(state_root, target)
        with structlog.contextvars.bound_contextvars(target=target.name):
            try:
                summary = (run or (lambda t, d: sync_and_record(t, d, shared, only=only)))(target, state_dir)
            except Exception as exc:  # one failing target never stops the others
                error = error_text(exc)
                get_logger(command="sync").error("target failed", error=error)
                summary = {"result": "failed", "pull_request": None, "error": error}
        results.append(
            TargetResult(
                target.name,
                summary["result"],
                summary.get("pull_request"),
                summary.get("error") or "",
                (shared.counter.count if shared.counter else 0) - before,
                round(time.monotonic() - start, 3),
            )
        )
    return results


def sync_and_record(
    target: Target, state_dir: Path, shared: SharedSources, *, only: Collection[int] | None = None
) -> dict:
    """``target``'s sync holding the lock of ``state_dir``, its changelog and report written to
    ``state_dir/last-run`` and the run recorded in ``state_dir/state.json`` (``last_run``, and
    ``last_success`` when it did not fail), so ``kep-sync health`` judges each target. Returns the run's
    :func:`bot.commands.sync.run_summary`. Raises :class:`~bot.service.state.StateError` when another process holds the
    lock."""
    from bot.service.job import LAST_RUN_DIR, LastRun
    from bot.service.state import InstanceLock, make_state_dir

    make_state_dir(state_dir)
    with InstanceLock(state_dir):
        last, started = LastRun(state_dir / LAST_RUN_DIR), _now()
        summary = _sync_to(last, target.config, shared, only)
        _record(state_dir, summary, started)
    return summary


def _sync_to(last, config: Config, shared: SharedSources, only: Collection[int] | None) -> dict:
    from bot.commands.sync import run_report, run_summary

    log = get_logger(command="sync")
    report = last.prepare()
    try:
        outcome = sync_target(config, shared, only=only, report_path=report)
    except ReportNotWritten as exc:
        log.error("last run not saved", error=redact(str(exc)))
        outcome = exc.outcome
    except Exception as exc:
        last.written["report"] = str(report)
        error = error_text(exc)
        return run_summary(last.failed(config, error, log))
    last.written["report"] = str(report)
    last.finished(outcome)
    return run_summary(run_report(config, outcome.plan.snapshot, outcome.plan, outcome))


def _record(state_dir: Path, summary: dict, started: datetime.datetime) -> None:
    """Store the run as ``last_run`` (and ``last_success`` unless failed) in ``state_dir/state.json``."""
    from bot.service.state import load_state, record_run, save_state

    state = load_state(state_dir, log=get_logger(command="sync"))
    record_run(state, summary, run_id=uuid.uuid4().hex[:12], started=started.isoformat(), finished=_now().isoformat())
    save_state(state_dir, state)


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def summary_lines(results: Sequence[TargetResult]) -> list[str]:
    """One line per target: ``NAME<TAB>RESULT<TAB>PULL REQUEST or -``, and the error of a failed one."""
    return [
        f"{r.name}\t{r.result}\t{r.pull_request or '-'}" + (f"\t{'; '.join(r.error.splitlines())}" if r.error else "")
        for r in results
    ]
