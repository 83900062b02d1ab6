"""``kep-sync serve``: run :func:`bot.service.job.run_job` on the configured crontab with APScheduler 3.x.

One ``BlockingScheduler`` in the main thread, one job:

- ``coalesce=True``: runs missed while the host slept or the service was busy collapse into one;
- ``max_instances=1``: a run never overlaps the previous one;
- ``misfire_grace_time`` = :data:`MISFIRE_GRACE_SECONDS`: a run later than that is dropped
  (the next fire time comes soon enough, and ``health`` reports the gap);
- ``--run-now``: the first run starts at once instead of at the next fire time.

SIGTERM, SIGINT and SIGHUP stop the scheduler (the log line names the signal); a run that has not
started by then never starts (``--run-now`` included); a run in progress is allowed to finish
for up to :data:`SHUTDOWN_TIMEOUT_SECONDS` (then the process exits 1), otherwise
the service exits 0. An instance lock (:class:`bot.service.state.InstanceLock`) keeps a
second service off the same state directory.
"""

from __future__ import annotations

import datetime
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from apscheduler.schedulers import SchedulerNotRunningError
from apscheduler.schedulers.blocking import BlockingScheduler
from apscheduler.triggers.base import BaseTrigger

from bot.config import Config
from bot.cron import parse_crontab, timezone
from bot.log import get_logger
from bot.service.liveness import process_identity
from bot.service.state import InstanceLock, load_state, save_state
from bot.service.stopsignals import STOP_SIGNALS

#: A run that could not start within this many seconds of its fire time is skipped.
MISFIRE_GRACE_SECONDS = 15 * 60
#: How long SIGTERM waits for the run in progress, seconds (``docker stop -t`` should allow this).
SHUTDOWN_TIMEOUT_SECONDS = 300.0
JOB_ID = "kep-sync"
AUDIT_JOB_ID = "kep-sync-audit"


class Runner:
    """The scheduled callable: runs ``job`` and records whether a run is in progress.

    Any exception ``job`` raises is logged and swallowed, so a failed run never
    stops the service. After :meth:`stop` no run starts (a fire time that comes
    between the stop signal and the scheduler's shutdown does nothing).
    """

    def __init__(self, job: Callable[[], object]):
        self._job = job
        self._busy = threading.Lock()
        self._gate = threading.Lock()  # a run starts, or the stop is recorded, never both at once
        self._stopped = False

    def __call__(self) -> None:
        with self._gate:
            if self._stopped:
                return
            self._busy.acquire()
        try:
            self._job()
        except Exception as exc:
            get_logger(command="serve").error("run crashed", error=f"{type(exc).__name__}: {exc}")
        finally:
            self._busy.release()

    def stop(self) -> bool:
        """Let no run start from now on; returns True when a run is in progress (it is left to finish)."""
        with self._gate:
            self._stopped = True
            return self._busy.locked()

    @property
    def busy(self) -> bool:
        """True while a run is in progress."""
        return self._busy.locked()

    def wait_idle(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the run in progress; True when none is running."""
        if not self._busy.acquire(timeout=timeout):
            return False
        self._busy.release()
        return True


class _JsonLogHandler(logging.Handler):
    """Forwards stdlib log records (APScheduler's) to structlog, so every line on stderr is JSON."""

    def emit(self, record: logging.LogRecord) -> None:
        get_logger(logger=record.name).log(record.levelno, record.getMessage())


def build_scheduler(
    runner: Callable[[], None],
    trigger: BaseTrigger,
    tz: datetime.tzinfo,
    *,
    first_run: datetime.datetime | None = None,
    audit: tuple[Callable[[], None], BaseTrigger] | None = None,
) -> BlockingScheduler:
    """A ``BlockingScheduler`` (not started) with the sync job and, when ``audit`` is given, the audit job
    (``(runner, trigger)``, id :data:`AUDIT_JOB_ID`); ``first_run`` overrides the sync's first fire time.
    One worker thread: a sync and an audit never overlap."""
    scheduler = BlockingScheduler(timezone=tz, executors={"default": {"type": "threadpool", "max_workers": 1}})
    options = {"next_run_time": first_run} if first_run else {}
    scheduler.add_job(
        runner,
        trigger,
        id=JOB_ID,
        name="kep-sync run",
        coalesce=True,
        max_instances=1,
        misfire_grace_time=MISFIRE_GRACE_SECONDS,
        **options,
    )
    if audit is not None:
        scheduler.add_job(
            audit[0],
            audit[1],
            id=AUDIT_JOB_ID,
            name="kep-sync audit",
            coalesce=True,
            max_instances=1,
            misfire_grace_time=MISFIRE_GRACE_SECONDS,
        )
    return scheduler


def serve(
    config: Config,
    state_dir: Path,
    *,
    run_now: bool = False,
    job: Callable[[], object] | None = None,
    shutdown_timeout: float = SHUTDOWN_TIMEOUT_SECONDS,
    audit_job: Callable[[], object] | None = None,
) -> int:
    """Run the service until a stop signal (:data:`STOP_SIGNALS`); returns the exit code (0).

    ``job`` defaults to :func:`bot.service.job.run_job` on ``config`` and ``state_dir``; with ``audit.cron`` set,
    ``audit_job`` (default :func:`bot.service.job.run_audit_job`) runs on that crontab too.
    Raises :class:`bot.service.state.StateError` when another instance holds the lock.
    When a run outlasts ``shutdown_timeout`` after a stop signal the process exits 1 at once.
    """
    from bot.service.job import run_audit_job, run_job

    trigger = parse_crontab(config.schedule.cron, config.schedule.timezone)
    tz = timezone(config.schedule.timezone)
    log = get_logger(command="serve")
    _route_apscheduler_log()
    with InstanceLock(state_dir):
        _record_start(state_dir, log)
        asked = [run_now]  # the run --run-now asks for is never skipped; scheduled ones may be

        def scheduled_run() -> object:
            return run_job(config, state_dir, force=asked.pop() if asked else False)

        runner = Runner(job or scheduled_run)
        auditor = Runner(audit_job or (lambda: run_audit_job(config, state_dir)))
        audit = (
            (auditor, parse_crontab(config.audit.cron, config.schedule.timezone)) if config.audit.cron.strip() else None
        )
        scheduler = build_scheduler(
            runner, trigger, tz, first_run=datetime.datetime.now(tz) if run_now else None, audit=audit
        )
        # Block the stop signals in every thread (threads inherit the mask) and take them with
        # sigwait in one thread: a handler only runs in the main thread, which sits in an
        # uninterruptible wait inside BlockingScheduler when the kernel picks another thread.
        previous_mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        stop, stopper = _stop_handlers((runner, auditor), scheduler, log, shutdown_timeout)

        log.info(
            "service started",
            cron=config.schedule.cron,
            audit_cron=config.audit.cron,
            timezone=config.schedule.timezone,
            state_dir=str(state_dir),
            run_now=run_now,
            next_run=str(trigger.get_next_fire_time(None, datetime.datetime.now(tz))),
        )
        try:
            # after "service started": a signal already pending is then logged after it, never before;
            # one that came while the service was starting stops it before the scheduler (and a --run-now
            # run) starts at all
            early = signal.sigtimedwait(STOP_SIGNALS, 0)
            if early is not None:
                stop(early.si_signo)
            else:
                threading.Thread(target=stopper, name="kep-sync-stop", daemon=True).start()
                scheduler.start()
                _exit_when_busy((runner, auditor), log, shutdown_timeout)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous_mask)
    log.info("service stopped")
    return 0


def _route_apscheduler_log() -> None:
    """APScheduler's own log lines (warnings and up) go out as kep-sync's JSON lines, and only there."""
    apscheduler_log = logging.getLogger("apscheduler")
    apscheduler_log.handlers[:] = [_JsonLogHandler()]
    apscheduler_log.setLevel(logging.WARNING)
    apscheduler_log.propagate = False


def _record_start(state_dir: Path, log: Any) -> None:
    """Record in the state file when (UTC, ISO 8601) and as which process the service started."""
    state = load_state(state_dir, log=log)
    state.service_started = datetime.datetime.now(datetime.UTC).isoformat()
    state.service_process = process_identity()
    save_state(state_dir, state)


def _stop_handlers(
    runners: tuple[Runner, Runner], scheduler: BlockingScheduler, log: Any, shutdown_timeout: float
) -> tuple[Callable[[int], None], Callable[[], None]]:
    """``(stop, stopper)``: ``stop(signo)`` stops both ``runners`` and logs it; ``stopper`` (a thread's target)
    waits for a stop signal, calls ``stop`` and shuts ``scheduler`` down."""

    def stop(signo: int) -> None:
        name = signal.Signals(signo).name
        # stop both runners first: a run that has not started by now never starts (--run-now included)
        in_progress = [r.stop() for r in runners]
        if any(in_progress):
            log.info("stop requested; finishing the run in progress", timeout_seconds=shutdown_timeout, signal=name)
        else:
            log.info("stop requested", signal=name)

    def stopper() -> None:
        signo = signal.sigwait(STOP_SIGNALS)
        try:
            stop(signo)
        except Exception:  # the scheduler must stop whatever the log does
            for r in runners:
                r.stop()
        # The signal can land before scheduler.start() runs: shutting down a scheduler that
        # is not running yet raises, so try again until it is.
        while True:
            try:
                scheduler.shutdown(wait=False)
                return
            except SchedulerNotRunningError:
                time.sleep(0.02)

    return stop, stopper


def _exit_when_busy(runners: tuple[Runner, Runner], log: Any, shutdown_timeout: float) -> None:
    """Exit the process with 1 at once when a run is still in progress ``shutdown_timeout`` seconds after
    the scheduler stopped (a second signal meanwhile stays blocked: no effect)."""
    if all(r.wait_idle(shutdown_timeout) for r in runners):
        return
    log.error("run still in progress after the shutdown timeout; exiting", timeout_seconds=shutdown_timeout)
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(1)
