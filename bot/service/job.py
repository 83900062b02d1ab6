"""One scheduled run of ``kep-sync serve``: a cheap poll, then a full sync only when something changed.

The poll asks each source for its current revision with one conditional
request (:func:`bot.sources.enhancements.current_revision`, and the release
notes, :func:`release_notes_etags`). When the enhancements revision, the
release notes ETags, the settings and the wiki (:func:`wiki_marker`: its base
revision, or the bytes of its pages for a plain directory) all equal those of
the last successful full run (kept in the state directory, :mod:`bot.service.state`),
the run is skipped: no GitHub calls. A run asked for (``force``: ``serve
--run-now``) is never skipped. A run whose publish was ``blocked`` (a commit
kep-sync did not make on the bot branch) does not count as a completed full
run, so the next poll is a full run again and sees a ``kep-sync:regenerate``
label added meanwhile. Every run logs JSON lines bound to a ``run_id`` and
ends with exactly one ``run finished`` summary line (level ``error`` for a
failed run, ``warning`` for a blocked one).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
import structlog

from bot.config import Config
from bot.errors import PublishError, ReportNotWritten
from bot.fileread import PAGE_BYTES, REPORT_BYTES, read_regular
from bot.http import RequestCounter, make_client
from bot.log import get_logger
from bot.redact import error_text, redact, redact_values, without_userinfo
from bot.service.state import RunRecord, State, load_state, record_run, save_state
from bot.sources.enhancements import Revision, current_revision
from bot.sources.release_notes import current_etags
from bot.sources.upstream import GitHubUpstream, github_upstream


def utcnow() -> datetime.datetime:
    """The current time, UTC, timezone-aware."""
    return datetime.datetime.now(datetime.UTC)


def config_fingerprint(config: Config) -> str:
    """A short hash of every setting: a changed config forces one full run."""
    return hashlib.sha256(config.model_dump_json().encode()).hexdigest()[:16]


def release_notes_etags(config: Config, client: httpx.Client, known: dict[str, str]) -> dict[str, str] | None:
    """The current ``{url: ETag}`` of the configured release notes (:func:`bot.sources.release_notes.current_etags`).

    ``{}`` when release notes are off (``release_notes.source: ""``); ``None``
    when unknown (the run is then a full one). ``known``: the ETags stored after
    the last full run.
    """
    if not config.release_notes.source:
        return {}
    return current_etags(config.release_notes.source, client, known, api_url=config.github.api_url)


def wiki_marker(config: Config) -> str:
    """What the wiki looks like now, cheaply: for ``publish: git``, ``git:`` and the commit SHA of the base
    (``wiki.base``, else ``HEAD``) in ``wiki.dir``; for pages read from ``wiki.dir`` otherwise, ``sha256:``
    and the hash of every configured page's path and bytes (a missing or unreadable page counts as such);
    ``""`` when the wiki is a GitHub repository (its pull request state is checked by the full run)."""
    from bot.commands.validate import pages_on_disk

    if not pages_on_disk(config):
        return ""
    root = Path(config.wiki.dir).expanduser()
    if config.publish == "git":
        import subprocess

        proc = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--verify", "-q", f"{config.wiki.base or 'HEAD'}^{{commit}}"],
            capture_output=True,
            check=False,
        )
        return f"git:{proc.stdout.decode('ascii', 'replace').strip()}" if proc.returncode == 0 else "git:?"
    digest = hashlib.sha256()
    for page in config.pages_to_read():
        try:
            data = read_regular(root / page, PAGE_BYTES)
        except OSError as exc:
            data = f"\0unreadable: {exc.errno}".encode()
        digest.update(f"{len(page)}:{page}{len(data)}:".encode() + data)
    return f"sha256:{digest.hexdigest()}"


def run_job(
    config: Config,
    state_dir: Path,
    *,
    sync: Callable | None = None,
    now: Callable[[], datetime.datetime] = utcnow,
    transport: httpx.BaseTransport | None = None,
    force: bool = False,
    upstream: GitHubUpstream | None = None,
    probe: Callable[[], Revision] | None = None,
) -> RunRecord:
    """Poll, sync if needed, record the outcome in ``state_dir``; never raises for a failed run.
    ``force``: a full run even when nothing changed (a run the user asked for).

    ``sync`` defaults to :func:`bot.commands.sync.run_sync` (called as ``sync(config, counter=..., report_path=...)``,
    plus ``upstream=`` for a ``github:`` source: the reader whose probe the poll made, see
    :meth:`bot.commands.inputs.Inputs.upstream`; ``upstream`` given here is that reader, shared by several targets);
    ``probe``: for another kind of source, what answers its revision instead of
    :func:`bot.sources.enhancements.current_revision` (one answer shared by several targets);
    ``transport`` is for tests (respx). Returns the :class:`RunRecord` stored as ``last_run``.
    The token comes from ``GITHUB_TOKEN`` only.
    """
    from bot.commands.sync import run_summary

    if sync is None:
        from bot.commands.sync import run_sync

        sync = run_sync
    run_id = uuid.uuid4().hex[:12]
    counter = RequestCounter()
    start, started = time.monotonic(), now()
    with structlog.contextvars.bound_contextvars(run_id=run_id):
        log = get_logger(command="serve")
        state = load_state(state_dir, log=log)
        log.info("run started", source=config.enhancements, known_revision=state.revision)
        last = LastRun(state_dir / LAST_RUN_DIR)
        try:
            summary = _poll_or_sync(config, state, sync, counter, transport, log, last, force, upstream, probe)
        except Exception as exc:  # one failed run must not stop the service
            # our errors read as `kep-sync: error:` prints them; anything else names its class
            error = error_text(exc)
            log.error("run failed", error=error)
            summary = run_summary(last.failed(config, error, log))
        result = summary["result"]
        record = record_run(
            state,
            summary,
            run_id=run_id,
            started=started.isoformat(),
            finished=now().isoformat(),
            http_requests=counter.count,
        )
        try:
            save_state(state_dir, state)
        except Exception as exc:
            log.error("state not saved", error=redact(str(exc)))
        level = {"failed": "error", "blocked": "warning"}.get(result, "info")
        from bot.commands.next_steps import listed_in

        changelog = last.written.get("changelog")
        getattr(log, level)(
            "run finished",
            **summary,
            rows_listed_in=listed_in(changelog, last.written.get("report"))
            if summary.get("rows_with_problems") and changelog
            else None,
            http_requests=counter.count,
            duration_seconds=round(time.monotonic() - start, 3),
            changelog=last.written.get("changelog"),
            report=last.written.get("report"),
        )
    return record


#: Under the state directory: the changelog and JSON report of the latest full or failed run.
LAST_RUN_DIR = "last-run"


class LastRun:
    """``STATE_DIR/last-run/changelog.md`` and ``report.json`` of the latest run that was not skipped, each
    replaced atomically; ``written``: ``{"changelog": path, "report": path}`` of the files this run wrote."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.report = directory / "report.json"
        self.written: dict[str, str] = {}

    def prepare(self) -> Path:
        """Create the directory; returns the report path to hand to the sync (it writes the report).
        Raises :class:`~bot.errors.PublishError` naming the directory when it cannot be created (e.g. a file
        is in its place)."""
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            raise PublishError(
                f"{self.directory}: exists and is not a directory; move it away so kep-sync "
                "can keep the last run's changelog and report there"
            ) from None
        except OSError as exc:
            raise PublishError(f"{self.directory}: cannot create: {exc.strerror or exc}") from None
        return self.report

    def finished(self, outcome) -> None:
        """Record the changelog of a sync that returned (``ok`` or ``blocked``); its report is already written.
        Raises :class:`~bot.errors.PublishError` when the changelog cannot be written."""
        plan = outcome.plan
        self._write_changelog(f"# {plan.changelog.title}\n\n{plan.changelog.body}")

    def failed(self, config: Config, error: str, log) -> dict:
        """Record a failed run: a changelog saying so and, when the sync did not write one, the report
        (``result: failed``). Returns the run's report: the one the sync wrote (its ``error`` is the one the
        changelog shows), else the one written here. A file that cannot be written is logged, never raised."""
        from bot.commands.sync import run_report, write_report

        report = None
        if "report" in self.written:
            try:
                report = json.loads(read_regular(self.report, REPORT_BYTES))
                error = report["error"]
            except (OSError, ValueError, KeyError, TypeError):
                report = None
        if report is None:
            report = run_report(config, None, None, None, error=error)
        try:
            self.prepare()
            if "report" not in self.written:
                write_report(self.report, report)
                self.written["report"] = str(self.report)
            self._write_changelog(f"# kep-sync: run failed\n\n{error}\n")
        except Exception as exc:
            log.error("last run not saved", error=redact(str(exc)))
        return report

    def _write_changelog(self, text: str) -> None:
        from bot.publish.files import write_files

        path = self.directory / "changelog.md"
        write_files({path: redact_values(text).encode("utf-8")}, must_exist=False)
        self.written["changelog"] = str(path)


def _stamp(path: Path) -> tuple[int, int] | None:
    """``(inode, mtime_ns)`` of ``path``, ``None`` when absent: an atomic replace changes it."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns


def _poll_or_sync(
    config: Config,
    state: State,
    sync: Callable,
    counter: RequestCounter,
    transport: httpx.BaseTransport | None,
    log,
    last: LastRun,
    force: bool = False,
    upstream: GitHubUpstream | None = None,
    ask: Callable[[], Revision] | None = None,
) -> dict:
    """The poll, then the full sync when needed; returns the run's :func:`bot.commands.sync.run_summary` (``result``
    ``skipped``, ``ok`` or ``blocked``). Updates ``state`` in place after a full run that was not blocked.
    A full run writes its changelog and report to ``last``."""
    from bot.commands.sync import run_summary

    source = without_userinfo(config.enhancements)  # the state never keeps a credential of a source URL
    same_source = state.source == source
    fingerprint = config_fingerprint(config)
    upstream = upstream or github_upstream(
        config.enhancements,
        Path(config.cache_dir).expanduser(),
        api_url=config.github.api_url,
        counter=counter,
        transport=transport,
    )  # its probe is the sync's: asked once
    with make_client(os.environ.get("GITHUB_TOKEN") or None, counter=counter, transport=transport) as client:
        probe = (
            upstream.probe((state.revision_etag, state.revision) if same_source else None)
            if upstream is not None
            else ask()
            if ask is not None
            else current_revision(
                config.enhancements,
                client,
                api_url=config.github.api_url,
                etag=state.revision_etag if same_source else "",
            )
        )
        notes = release_notes_etags(config, client, state.release_notes_etags if same_source else {})
    # a 304 to the state's ETag means the state's revision; the upstream reader fills in its own
    revision = probe.revision or (state.revision if probe.not_modified else "")
    blocked_before = state.last_run is not None and state.last_run.result == "blocked"
    if (
        not force
        and revision
        and same_source
        and revision == state.revision
        and state.config == fingerprint
        and notes is not None
        and notes == state.release_notes_etags
        and not blocked_before
        and state.wiki == wiki_marker(config)
    ):
        log.info("no upstream or wiki change; run skipped", revision=revision)
        return run_summary(
            {"result": "skipped", "revision": revision, "changes": [], "pages_written": [], "pull_request": None}
        )
    try:
        report = last.prepare()
    except PublishError as exc:  # the sync still runs; only its last-run files are lost
        log.error("last run not saved", error=redact(str(exc)))
        report = None
    before = _stamp(report) if report else None
    try:
        outcome = sync(config, counter=counter, report_path=report, **({"upstream": upstream} if upstream else {}))
    except ReportNotWritten as exc:  # the sync landed: its outcome stands, only the report file is missing
        log.error("last run not saved", error=redact(str(exc)))
        outcome = exc.outcome
    except Exception:
        if report and _stamp(report) != before:  # the sync wrote its failure report
            last.written["report"] = str(report)
        raise
    else:
        if report:
            last.written["report"] = str(report)
    from bot.commands.sync import run_report

    if report:
        try:
            last.finished(outcome)
        except Exception as exc:  # a good sync stays good: the changelog file is what is lost
            log.error("last run not saved", error=redact(str(exc)))
    # a probe that named no revision (a local work tree with changes) leaves none to skip on next time
    synced = outcome.plan.snapshot.revision if revision else ""
    summary = run_summary(run_report(config, outcome.plan.snapshot, outcome.plan, outcome))  # what the report says
    if outcome.blocked:  # the state keeps the last completed run, so the next poll is a full run
        return summary
    state.source, state.revision, state.config = source, synced, fingerprint
    state.revision_etag = probe.etag if synced == revision else ""
    state.release_notes_etags = notes or {}
    state.wiki = wiki_marker(config)  # after the run: the pages as it left them
    return summary


def run_audit_job(config: Config, state_dir: Path, *, audit: Callable | None = None) -> bool:
    """One scheduled ``kep-sync audit`` (``audit.cron``): writes ``STATE_DIR/audit.md`` and ``audit.json``.

    ``audit`` defaults to :func:`bot.commands.sync.run_audit` (called as ``audit(config, report_path=...,
    counter=...)``).
    Logs one ``audit finished`` line (``result`` ``ok`` or ``failed``); never raises and leaves the sync's
    state (and so ``kep-sync health``) alone. Returns True when the audit completed.
    """
    if audit is None:
        from bot.commands.sync import run_audit

        audit = run_audit
    counter = RequestCounter()
    start = time.monotonic()
    with structlog.contextvars.bound_contextvars(run_id=uuid.uuid4().hex[:12]):
        log = get_logger(command="serve")
        try:
            done = audit(config, report_path=state_dir / "audit.json", counter=counter)
            from bot.publish.files import write_files

            write_files({state_dir / "audit.md": done.markdown.encode("utf-8")}, must_exist=False)
        except Exception as exc:  # a failed audit must not stop the service
            log.error(
                "audit finished",
                result="failed",
                error=redact(f"{type(exc).__name__}: {exc}"),
                http_requests=counter.count,
                duration_seconds=round(time.monotonic() - start, 3),
            )
            return False
        from bot.commands.audit import log_fields

        log.info(
            "audit finished",
            result="ok",
            **log_fields(done),
            http_requests=counter.count,
            duration_seconds=round(time.monotonic() - start, 3),
        )
    return True
