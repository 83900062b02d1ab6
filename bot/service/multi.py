"""Run many targets (:mod:`bot.commands.targets`) in one process: upstream read once, each wiki on its own.

:class:`Inputs` reads the enhancements snapshot, its history (provenance and renames), the release
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
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import structlog

from bot.commands.inputs import Inputs
from bot.commands.targets import Target, state_dir_of
from bot.config import Config
from bot.errors import ConfigError, KepSyncError, ReportNotWritten, UsageError
from bot.log import get_logger
from bot.redact import error_text, redact

if TYPE_CHECKING:
    from bot.commands.sync import SyncOutcome


def check_snapshot(shared: Inputs) -> None:
    """Read the snapshot now; raises its :class:`~bot.errors.ConfigError` or :class:`~bot.errors.UsageError`
    (a source that is misconfigured: exit 2 before any target runs, as for one target). Any other failure
    is kept: every target fails with it (:meth:`~bot.commands.inputs.Inputs.snapshot`)."""
    try:
        shared.snapshot()
    except (ConfigError, UsageError):
        raise
    except KepSyncError:
        pass


def sync_target(
    config: Config, shared: Inputs, *, only: Collection[int] | None = None, report_path: Path | None = None
) -> SyncOutcome:
    """One target's sync (:func:`bot.commands.sync.run_sync`) on the upstream ``shared`` reads
    (:meth:`~bot.commands.inputs.Inputs.for_target`); raises as :func:`bot.commands.sync.run_sync` does, after
    writing the failure report to ``report_path``."""
    from bot.commands.sync import run_sync

    return run_sync(config, only=only, report_path=report_path, inputs=shared.for_target(config))


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
    shared: Inputs,
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


def sync_and_record(target: Target, state_dir: Path, shared: Inputs, *, only: Collection[int] | None = None) -> dict:
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


def _sync_to(last, config: Config, shared: Inputs, only: Collection[int] | None) -> dict:
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
