"""One sync run wired from a :class:`~bot.config.Config`: the only module that drives the pipeline.

    inputs = Inputs(config)                          # the run's sources, each read on first ask
    snapshot = inputs.snapshot()                     # sources -> model
    wiki = inputs.wiki                               # a wiki backend: directory | git clone | GitHub
    base = wiki.read()                               # the pages at the base
    plan = plan_sync(config, snapshot, base.pages, ...)  # wiki -> diff / evidence -> changelog (pure)
    publication = wiki.publish(plan, replan)         # publish; replan: for a base that moved

Nothing below imports this module; :mod:`bot.cli.main` and :mod:`bot.service.job` call :func:`run_sync`.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from bot.commands.inputs import Inputs
from bot.config import Config
from bot.errors import ConfigError, KepSyncError, PublishError, ReportNotWritten
from bot.plan.planner import SyncPlan, page_url, plan_sync
from bot.publish.backend import PagesAtBase, Publication, Wiki
from bot.publish.directory import DirectoryWiki
from bot.publish.files import write_files

if TYPE_CHECKING:
    from bot.commands.audit import AuditPlan
    from bot.http import RequestCounter
    from bot.model.snapshot import Snapshot
    from bot.sources.upstream import GitHubUpstream


#: What :func:`run_sync` did: the plan that was published, the pages ``written``, the pull request ``url`` and
#: ``blocked`` (see :class:`~bot.publish.backend.Publication`); for ``--publish none`` the plan and nothing else.
SyncOutcome = Publication


class Published(NamedTuple):
    """What :func:`run_report` reads of a publication when there is no :class:`Publication` (an audit publishes
    nothing):
    the pages ``written``, the pull request ``url`` and ``blocked``."""

    written: list[str]
    url: str = ""
    blocked: bool = False


def sync_snapshot(
    config: Config,
    snapshot: Snapshot,
    wiki: Wiki,
    *,
    only: Collection[int] | None = None,
    today: str | None = None,
    report_path: Path | None = None,
    inputs: Inputs | None = None,
) -> SyncOutcome:
    """Read the pages from ``wiki``, plan against ``snapshot`` and, unless ``config.publish`` is ``none``, publish.

    ``inputs``: the run's sources (:class:`~bot.commands.inputs.Inputs`): the planner
    (:func:`bot.plan.planner.plan_sync`) gets their release notes, gate lists, provenance, renamed directories and
    gate origins, each read on its first ask, and, with ``release.watch``, the watch
    (:func:`bot.commands.watch_inputs.sync_watch`); ``None``: the snapshot alone is reviewed (tests), the watch
    still reads ``config``'s sources. ``only`` and ``today`` go to the planner.
    The JSON report (:func:`run_report`) goes to ``report_path`` when given, after publication, from the plan
    that was published; in every publishing mode a first report saying nothing was written yet goes there before
    any page is written or committed (so a bad ``--report`` lands nothing). When the final report cannot
    be written after publishing, :class:`ReportNotWritten` carries the published outcome. A failed run still writes
    its report (``result: failed``, ``error``) when it can, then raises. Raises a
    :class:`~bot.errors.KepSyncError` subclass on failure, leaving the wiki untouched.
    """

    from bot.commands.watch_inputs import sync_watch

    if inputs is None:  # the snapshot alone: no provenance, release notes or gate lists in the review
        history = renames = release_notes = gates = gate_history = None
        own = Inputs(config, snapshot=snapshot)
        records, watched = own.records(), sync_watch(own)
    else:
        history, renames = inputs.provenance()
        release_notes, gates = inputs.notes_loader(), inputs.gates_loader()
        records, watched = inputs.records(), sync_watch(inputs)
        gate_history = inputs.gate_origins() if release_notes or gates else None

    def replan(base: PagesAtBase) -> SyncPlan:
        return plan_sync(
            config,
            snapshot,
            base.pages,
            only=only,
            today=today,
            release_notes=release_notes,
            max_chars=base.max_chars,
            history=history,
            renames=renames,
            gates=gates,
            page_url=page_url(config, base.revision),
            watch=watched,
            gate_history=gate_history,
            records=records,
        )

    plan = None
    try:
        plan = replan(_read(wiki, config))
        if config.publish == "none":
            publication = SyncOutcome(plan, [], "")
        else:
            # Every mode: a report path that cannot be written stops the run before anything lands.
            verb = "written" if config.publish == "files" else "committed"
            _write_report(
                report_path, run_report(config, snapshot, plan, None, error=f"stopped before the pages were {verb}")
            )
            publication = wiki.publish(plan, replan)
    except KepSyncError as exc:
        if not isinstance(exc, _ReportError):
            write_failure_report(report_path, config, snapshot, plan, exc)
        raise
    outcome = SyncOutcome(*publication)
    try:
        _write_report(report_path, run_report(config, snapshot, publication.plan, publication))
    except _ReportError as exc:
        raise ReportNotWritten(str(exc).removeprefix("report "), outcome) from None
    return outcome


def run_sync(
    config: Config,
    *,
    only: Collection[int] | None = None,
    report_path: Path | None = None,
    counter: RequestCounter | None = None,
    upstream: GitHubUpstream | None = None,
    inputs: Inputs | None = None,
) -> SyncOutcome:
    """Run one sync end to end and publish per ``config.publish``: :func:`sync_snapshot` on the snapshot and the
    wiki of ``inputs`` (:class:`~bot.commands.inputs.Inputs`, one on ``config`` when ``None``); ``counter``
    counts HTTP requests.

    ``none`` writes nothing (with ``wiki.repo`` set it reads the pages from that repository's base
    branch through the API, read-only; else from ``wiki.dir``); ``files`` rewrites changed pages in
    place (atomic); ``git`` commits on the bot branch of the clone at ``wiki.dir``; ``github`` opens
    or updates the pull request on ``wiki.repo``. A run that fails before it has a plan still writes
    the report (``result: failed``) to ``report_path`` when it can. ``upstream``: the run-level reader of a
    ``github:`` source whose probe the caller made (the service's poll), reused for the snapshot.
    A :class:`~bot.errors.KepSyncError` raised while reading is re-raised after the failure report
    (``result: failed``) is written to ``report_path``.
    """
    inputs = inputs or Inputs(config, counter, upstream=upstream)
    snapshot = None
    try:
        snapshot = inputs.snapshot()
        inputs.provenance()
        wiki = inputs.wiki
    except KepSyncError as exc:
        write_failure_report(report_path, config, snapshot, None, exc)
        raise
    return sync_snapshot(
        config,
        snapshot,
        wiki,
        only=only,
        today=datetime.date.today().isoformat(),
        report_path=report_path,
        inputs=inputs,
    )


def _read(wiki: Wiki, config: Config) -> PagesAtBase:
    """``wiki.read()``; a missing coverage or digest page is named as ``coverage.page`` / ``digest.page``,
    not ``wiki.pages``. A directory wiki whose settings name one file for two kinds of page (a symbolic
    link: :func:`bot.commands.validate.same_files`) raises :class:`ConfigError` before anything is read, and
    so does a configured page without a KEP table (:func:`_pages_without_kep_table`) once read: a run that
    could sync nothing there never reports success."""
    if isinstance(wiki, DirectoryWiki):
        from bot.commands.validate import same_files

        overlap = same_files(config)
        if overlap:
            raise ConfigError(overlap[0])
    try:
        base = wiki.read()
    except ConfigError as exc:
        for key, page in (("coverage.page", config.coverage.page), ("digest.page", config.digest.page)):
            prefix = f"wiki.pages (--page) {page!r}: "
            if page and page not in config.wiki.pages and str(exc).startswith(prefix):
                raise ConfigError(f"{key} {page!r}: {str(exc)[len(prefix) :]}") from None
        raise
    without = _pages_without_kep_table(config, base.pages)
    if without:
        raise ConfigError("\n".join(without))
    return base


def _pages_without_kep_table(config: Config, pages: Mapping[str, bytes]) -> list[str]:
    """One ``wiki.pages[i] 'PAGE': why`` line per configured page (read as ``pages``) with no table whose
    header names a KEP column (:func:`bot.commands.validate.kep_table_problem`), as ``kep-sync validate``
    says it; a page that is not UTF-8 is left to the planner, which names it."""
    from bot.commands.validate import kep_table_problem

    out = []
    for i, page in enumerate(config.wiki.pages):
        try:
            text = pages[page].decode("utf-8")
        except (KeyError, UnicodeDecodeError):
            continue
        why = kep_table_problem(text, config.aliases())
        if why:
            out.append(f"wiki.pages[{i}] {page!r}: {why}")
    return out


def run_audit(
    config: Config,
    *,
    only: Collection[int] | None = None,
    report_path: Path | None = None,
    counter: RequestCounter | None = None,
) -> AuditPlan:
    """Audit the pages (``kep-sync audit``): every check on every row; nothing is written but ``report_path``.

    The pages are read as ``--publish none`` reads them (``wiki.repo`` through the API, read-only; else
    ``wiki.dir``), whatever ``config.publish`` says; the release notes of every release the source has
    are read (``release_notes.source``); each change carries its upstream provenance as a sync's does
    (:meth:`~bot.commands.inputs.Inputs.provenance`). The pure stage is :func:`bot.commands.audit.plan_audit`.
    The report is a sync's
    (:func:`run_report`: ``publish: "none"``, ``result``, ``pages_written: []``, ``pull_request: null``)
    plus the ``audit`` object; a failed audit writes ``result: failed`` with the ``error``, as a sync
    does, then raises the :class:`~bot.errors.KepSyncError` subclass.
    """
    from bot.commands.audit import plan_audit

    config = config.model_copy(update={"publish": "none"})
    inputs = Inputs(config, counter)
    snapshot = audit = None
    try:
        snapshot = inputs.snapshot()
        history, renames = inputs.provenance()
        base = _read(inputs.wiki, config)
        gates = inputs.gates_loader()
        audit = plan_audit(
            config,
            snapshot,
            base.pages,
            inputs.release_notes(None) if inputs.notes_on else None,
            only=only,
            history=history,
            renames=renames,
            gates=gates,
            gate_history=inputs.gate_origins() if inputs.notes_on or gates else None,
            records=inputs.records(),
        )
    except KepSyncError as exc:
        write_failure_report(report_path, config, snapshot, None, exc)
        raise
    _write_report(report_path, run_report(config, snapshot, audit, Published([])))
    return audit


def run_report(
    config: Config,
    snapshot: Snapshot | None,
    plan: SyncPlan | AuditPlan | None,
    publication: Publication | Published | None,
    *,
    error: str = "",
) -> dict:
    """The ``--report`` JSON object of a run: :func:`bot.plan.changelog.body.report` of the ``plan`` plus what happened.

    ``plan``: a :class:`~bot.plan.planner.SyncPlan` or a :class:`~bot.commands.audit.AuditPlan` (only its ``report`` is
    read).

    - ``publish``: the mode; ``result``: ``ok``, ``blocked`` (``publication.blocked``) or ``failed`` (``error``
      given, or no ``publication``); ``error`` only on failure; ``pull_request``: the URL or ``null``;
    - ``pull_request_file``: for ``git``, the path of the ``pull-request.md`` written, else ``null``;
    - ``pages_written``: the pages this run wrote (``files``) or committed (``git``, ``github``), sorted;
    - each change: ``proposed`` (the plan changes this row: ``Change.applied``) and ``applied``, true only
      when its page is in ``pages_written``, so ``--publish none``, a failed and a blocked run apply nothing;
    - ``rows_with_problems`` (with a plan): how many page rows were left as is or kept a value kep-sync would
      not write, each listed among ``problems`` and in the changelog's Problems section.

    Without a plan (the run failed before planning) ``changes`` is empty and ``problems`` are the
    snapshot's, if it was read.
    """
    from bot.plan.changelog import body as changelog

    if plan is not None:
        base = plan.report
    elif snapshot is not None:
        base = changelog.report(snapshot, [], snapshot.all_problems())
    else:
        base = {"revision": "", "changes": [], "problems": []}
    failed = bool(error) or publication is None
    written = sorted(publication.written) if publication is not None and not failed and not publication.blocked else []
    result = "failed" if failed or publication is None else "blocked" if publication.blocked else "ok"
    changes = base["changes"] if isinstance(base["changes"], list) else []
    out = {
        **base,
        "changes": [{**c, "proposed": c["applied"], "applied": c["applied"] and c["page"] in written} for c in changes],
        "publish": config.publish,
        "result": result,
        "pages_written": written,
        "pull_request": (publication.url or None) if publication is not None and config.publish == "github" else None,
        "pull_request_file": (publication.url or None) if publication is not None and config.publish == "git" else None,
    }
    if isinstance(publication, Publication) and publication.automerge:
        out["automerge"] = publication.automerge
    if plan is not None:
        from bot.commands.next_steps import rows_with_problems

        out["rows_with_problems"] = rows_with_problems(plan.problems)
    if failed:
        out["error"] = error or "the run did not finish"
    return out


def run_summary(report: dict) -> dict:
    """The summary of a run for its log line and ``state.json``, read from its report (:func:`run_report`), so
    they never disagree: ``result``, ``revision``, ``changes`` (how many changes were proposed: the rows the
    changelog lists), ``applied`` (how many were written or committed), ``pages_written`` (a count),
    ``pull_request`` (URL or ``None``), ``pull_request_file`` (``None`` unless ``git``), ``rows_with_problems``
    (rows left as is, listed in the changelog's Problems section; 0 without a plan) and ``error``
    (``None`` unless failed)."""
    return {
        "result": report["result"],
        "revision": report["revision"],
        "changes": sum(bool(c.get("proposed")) for c in report["changes"]),
        "applied": sum(bool(c.get("applied")) for c in report["changes"]),
        "pages_written": len(report["pages_written"]),
        "pull_request": report["pull_request"],
        "pull_request_file": report.get("pull_request_file"),
        "rows_with_problems": report.get("rows_with_problems", 0),
        "error": report.get("error"),
    }


def write_failure_report(
    path: Path | None, config: Config, snapshot: Snapshot | None, plan: SyncPlan | None, exc: Exception
) -> None:
    """Best effort: the report of a failed run (:func:`run_report` with ``error``); a report that cannot be
    written is left out, so the run's own error is the one raised."""
    from bot.redact import redact

    try:
        _write_report(path, run_report(config, snapshot, plan, None, error=redact(str(exc))))
    except KepSyncError:
        pass


def write_report(path: Path, report: dict) -> None:
    """Write ``report`` as JSON to ``path`` atomically; raises :class:`~bot.errors.PublishError` naming it."""
    _write_report(path, report)


class _ReportError(PublishError):
    """The report itself could not be written (exit 1): no second attempt to write it."""


def _write_report(path: Path | None, report: dict) -> None:
    if path is None:
        return
    from bot.redact import redact_values

    data = redact_values(json.dumps(report, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")
    try:
        write_files({path: data}, must_exist=False)
    except PublishError as exc:
        raise _ReportError(f"report {exc}") from None
