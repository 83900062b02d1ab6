"""One sync run wired from a :class:`~bot.config.Config`: the only module that drives the pipeline.

    snapshot = load_enhancements(config)            # sources -> model
    wiki = open_wiki(config)                         # a wiki backend: directory | git clone | GitHub
    base = wiki.read()                               # the pages at the base
    plan = plan_sync(config, snapshot, base.pages)   # wiki -> diff / evidence -> changelog (pure)
    publication = wiki.publish(plan, replan)         # publish; replan: for a base that moved

Nothing below imports this module; :mod:`bot.cli.main` and :mod:`bot.service.job` call :func:`run_sync`.
"""

from __future__ import annotations

import datetime
import json
import os
import time
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from bot.config import Config
from bot.errors import ConfigError, KepSyncError, PublishError, ReportNotWritten
from bot.plan.planner import SyncPlan, page_url, plan_sync
from bot.publish.backend import PagesAtBase, Publication, Wiki
from bot.publish.directory import DirectoryWiki
from bot.publish.files import write_files
from bot.sources.enhancements import load_snapshot

if TYPE_CHECKING:
    from bot.commands.audit import AuditPlan
    from bot.http import RequestCounter
    from bot.model.gates import Lifecycle
    from bot.model.history.declared import GateOrigins
    from bot.model.history.provenance import History
    from bot.model.history.renames import Rename
    from bot.model.notes import ReleaseNotes
    from bot.model.release_calendar import Records
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


def records_of(config: Config, counter: RequestCounter | None = None) -> Records | None:
    """The release team's records of ``config.release.sig_release`` (:func:`bot.sources.sig_release.load_records`,
    token from ``GITHUB_TOKEN``); ``None`` when off."""
    if not config.release.sig_release:
        return None
    from bot.sources.sig_release import load_records

    token = os.environ.get("GITHUB_TOKEN") or None
    cache = Path(config.cache_dir).expanduser()
    return load_records(config.release.sig_release, cache, api_url=config.github.api_url, token=token, counter=counter)


def release_notes_loader(
    config: Config, counter: RequestCounter | None = None
) -> Callable[[Collection[str] | None], ReleaseNotes] | None:
    """A loader ``wanted releases -> ReleaseNotes`` for ``config.release_notes.source`` (token from
    ``GITHUB_TOKEN``), or ``None`` when release notes are off (``source: ""``)."""
    if not config.release_notes.source:
        return None

    def load(wanted: Collection[str] | None) -> ReleaseNotes:  # None: every release
        from bot.sources.release_notes import load_release_notes

        return load_release_notes(
            config.release_notes.source,
            Path(config.cache_dir).expanduser(),
            wanted,
            api_url=config.github.api_url,
            token=os.environ.get("GITHUB_TOKEN") or None,
            counter=counter,
        )

    return load


def open_upstream(config: Config, counter: RequestCounter | None = None) -> GitHubUpstream | None:
    """The run-level reader of a ``github:`` ``config.enhancements`` (its cache in ``cache_dir``), ``None`` for
    another kind of source; one per process, reused by every call that takes ``upstream``."""
    from bot.sources.upstream import github_upstream

    return github_upstream(
        config.enhancements, Path(config.cache_dir).expanduser(), api_url=config.github.api_url, counter=counter
    )


def gate_lifecycle_loader(
    config: Config, counter: RequestCounter | None = None
) -> Callable[[Collection[str]], Lifecycle] | None:
    """A loader ``wanted releases -> Lifecycle`` for ``config.gate_lifecycle.source`` (token from
    ``GITHUB_TOKEN``), read once per run however often it is called; ``None`` when the source is off."""
    if not config.gate_lifecycle.source:
        return None
    read: dict[str, Lifecycle] = {}

    def load(wanted: Collection[str]) -> Lifecycle:
        from bot.sources.gate_lifecycle import load_gate_lifecycle

        if "lc" not in read:
            read["lc"] = load_gate_lifecycle(
                config.gate_lifecycle.source,
                Path(config.cache_dir).expanduser(),
                wanted,
                api_url=config.github.api_url,
                token=os.environ.get("GITHUB_TOKEN") or None,
                counter=counter,
            )
        return read["lc"]

    return load


def load_enhancements(
    config: Config, counter: RequestCounter | None = None, upstream: GitHubUpstream | None = None
) -> Snapshot:
    """The snapshot named by ``config.enhancements`` (token from ``GITHUB_TOKEN`` for ``github:``); through
    ``upstream`` (:func:`open_upstream`) when given: incremental, cached by commit in ``cache_dir``."""
    if upstream is not None:
        return upstream.snapshot()
    return load_snapshot(
        config.enhancements,
        Path(config.cache_dir).expanduser(),
        api_url=config.github.api_url,
        token=os.environ.get("GITHUB_TOKEN") or None,
        counter=counter,
    )


def history_loader(
    config: Config, snapshot: Snapshot, counter: RequestCounter | None = None, upstream: GitHubUpstream | None = None
) -> tuple[Callable[[Mapping[str, Collection[str]], Collection[str]], History] | None, dict[tuple[int, str], Rename]]:
    """``(history loader for plan_sync, renamed KEP directories)`` for ``config.enhancements`` at the
    snapshot's revision; the loader takes ``{kep.yaml path: tracked fields}`` and the paths of the
    proposed changes.

    Git sources (a checkout, URL or bundle) read the local clone: the log and
    the renames now, the field timelines of the changed kep.yaml files when the
    loader is called (only the versions provenance needs). ``github:`` sources
    send one commits-API request per kep.yaml of a proposed change (at most
    ``provenance.max_requests``; report-only findings get none). The loader is
    ``None`` (no provenance, no report keys) for a source without history (a
    plain directory, a tarball) and when ``provenance.enabled`` is false;
    renamed directories come from a git source's log either way. With ``upstream`` the ``github:`` answers
    come from its cache by commit first (:meth:`~bot.sources.upstream.GitHubUpstream.last_commits`).
    """
    from bot.model.history.provenance import History
    from bot.model.history.renames import renamed_dirs
    from bot.sources.enhancements import parse_source
    from bot.sources.history import github_last_commits, read_history

    source = parse_source(config.enhancements)
    git = read_history(source.kind, source.location, Path(config.cache_dir).expanduser(), snapshot.revision)
    renames = renamed_dirs(git.log()) if git is not None else {}
    if not config.provenance.enabled:
        return None, renames
    if git is not None:
        return (
            lambda wanted, proposed=(): History("git", timelines=git.recent(wanted), shallow=git.boundary())
        ), renames
    if source.kind != "github" or not snapshot.revision:
        return None, renames

    asked: dict[str, History] = {}  # a replan (the wiki base moved) asks again for the same files: no new requests

    def from_github(wanted: Mapping[str, Collection[str]], proposed: Collection[str] | None = None) -> History:
        from bot.http import make_client

        # Requests cost rate limit: only the kep.yaml files of proposed changes (report-only findings
        # repeat on every run), when the plan says which those are.
        paths = [p for p in wanted if proposed is None or p in proposed]
        key = "\n".join(sorted(paths))
        if key not in asked and upstream is not None:
            last, sent = upstream.last_commits(paths, config.provenance.max_requests)
            asked[key] = History("github", last=last, requests=sent)
        if key not in asked:
            with make_client(os.environ.get("GITHUB_TOKEN") or None, counter=counter) as client:
                last, sent = github_last_commits(
                    client,
                    config.github.api_url,
                    source.location,
                    snapshot.revision,
                    paths,
                    config.provenance.max_requests,
                )
            asked[key] = History("github", last=last, requests=sent)
        return asked[key]

    return from_github, renames


def gate_history_loader(config: Config, snapshot: Snapshot) -> Callable[[Collection[str]], GateOrigins] | None:
    """When each kep.yaml first declared its gates, for gate ownership (:mod:`bot.plan.evidence.ownership`): a
    loader over the git history of ``config.enhancements`` at the snapshot's revision
    (:func:`bot.sources.history.gate_origins_loader`), ``None`` for a source without local history."""
    from bot.sources.enhancements import parse_source
    from bot.sources.history import gate_origins_loader

    source = parse_source(config.enhancements)
    return gate_origins_loader(source.kind, source.location, Path(config.cache_dir).expanduser(), snapshot.revision)


def open_wiki(
    config: Config,
    counter: RequestCounter | None = None,
    *,
    env: Mapping[str, str] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    seconds_between_writes: float | None = None,
) -> Wiki:
    """The wiki backend for ``config.publish``: GitHub for ``github`` (and for ``none`` with ``wiki.repo`` set,
    read-only), the git clone at ``wiki.dir`` for ``git``, else the directory ``wiki.dir``.

    ``env``, ``sleep`` and ``seconds_between_writes`` go to
    :meth:`bot.publish.github.GitHubWiki.connect` (tests). Raises :class:`~bot.errors.ConfigError`
    for ``github`` without ``wiki.repo`` or credentials.
    """
    if config.publish == "github" or (config.publish == "none" and config.wiki.repo):
        from bot.publish.github import GitHubWiki

        return GitHubWiki.connect(
            config,
            counter,
            env,
            sleep,
            seconds_between_writes,
            read_only=config.publish == "none",
            explain=explainer(config),
        )
    if config.publish == "git":
        from bot.publish.git import GitWiki

        return GitWiki(config, Path(config.wiki.dir).expanduser())
    return DirectoryWiki(Path(config.wiki.dir).expanduser(), config.pages_to_read(), once=config.wiki.pages)


def explainer(config: Config) -> Callable[[int], str]:
    """KEP number -> its field history as ``kep-sync history N`` prints it, from ``config.enhancements`` (for
    ``/kep-sync explain``). Raises :class:`~bot.errors.UsageError` when the source has no git history (a
    ``github:`` source or a tarball) or no kep.yaml ever had the number."""

    def explain(number: int) -> str:
        from bot.commands.history import history_text

        return history_text(config.enhancements, Path(config.cache_dir).expanduser(), number)

    return explain


def sync_snapshot(
    config: Config,
    snapshot: Snapshot,
    wiki: Wiki,
    *,
    only: Collection[int] | None = None,
    today: str | None = None,
    release_notes: ReleaseNotes | Callable[[Collection[str]], ReleaseNotes] | None = None,
    report_path: Path | None = None,
    history: History | Callable[[Mapping[str, Collection[str]], Collection[str]], History] | None = None,
    renames: Mapping[tuple[int, str], Rename] | None = None,
    gates: Lifecycle | Callable[[Collection[str]], Lifecycle] | None = None,
) -> SyncOutcome:
    """Read the pages from ``wiki``, plan against ``snapshot`` and, unless ``config.publish`` is ``none``, publish.

    ``only``, ``today``, ``release_notes``, ``history``, ``renames`` and ``gates`` go to
    :func:`bot.plan.planner.plan_sync`.
    The JSON report (:func:`run_report`) goes to ``report_path`` when given, after publication, from the plan
    that was published; in every publishing mode a first report saying nothing was written yet goes there before
    any page is written or committed (so a bad ``--report`` lands nothing). When the final report cannot
    be written after publishing, :class:`ReportNotWritten` carries the published outcome. A failed run still writes
    its report (``result: failed``, ``error``) when it can, then raises. Raises a
    :class:`~bot.errors.KepSyncError` subclass on failure, leaving the wiki untouched.
    """

    from bot.commands.watch_inputs import sync_watch

    records = records_of(config)
    watched = sync_watch(config, snapshot, release_notes_loader(config), records=records)
    gate_history = gate_history_loader(config, snapshot) if release_notes or gates else None

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
) -> SyncOutcome:
    """Run one sync end to end and publish per ``config.publish`` (:func:`sync_snapshot` on
    :func:`load_enhancements` and :func:`open_wiki`); ``counter`` counts HTTP requests.

    ``none`` writes nothing (with ``wiki.repo`` set it reads the pages from that repository's base
    branch through the API, read-only; else from ``wiki.dir``); ``files`` rewrites changed pages in
    place (atomic); ``git`` commits on the bot branch of the clone at ``wiki.dir``; ``github`` opens
    or updates the pull request on ``wiki.repo``. A run that fails before it has a plan still writes
    the report (``result: failed``) to ``report_path`` when it can. ``upstream``: the run-level reader of a
    ``github:`` source (:func:`open_upstream`, made here when ``None``), whose probe and snapshot are reused.
    """

    def read() -> Snapshot:
        nonlocal upstream
        upstream = upstream or open_upstream(config, counter)
        return load_enhancements(config, counter, upstream)

    return sync_read(
        config,
        read,
        lambda snapshot: history_loader(config, snapshot, counter, upstream),
        counter,
        only=only,
        report_path=report_path,
        release_notes=release_notes_loader(config, counter),
        gates=gate_lifecycle_loader(config, counter),
    )


def sync_read(
    config: Config,
    read: Callable[[], Snapshot],
    history_of: Callable[[Snapshot], tuple],
    counter: RequestCounter | None,
    *,
    only: Collection[int] | None,
    report_path: Path | None,
    release_notes: Callable[[Collection[str] | None], ReleaseNotes] | None,
    gates: Callable[[Collection[str]], Lifecycle] | None,
) -> SyncOutcome:
    """:func:`sync_snapshot` of today on ``read()`` (the snapshot), ``history_of(snapshot)`` (``(history loader,
    renames)`` as :func:`history_loader` returns) and :func:`open_wiki`. A
    :class:`~bot.errors.KepSyncError` raised while reading is re-raised after the failure report
    (``result: failed``) is written to ``report_path``."""
    snapshot = None
    try:
        snapshot = read()
        history, renames = history_of(snapshot)
        wiki = open_wiki(config, counter)
    except KepSyncError as exc:
        write_failure_report(report_path, config, snapshot, None, exc)
        raise
    return sync_snapshot(
        config,
        snapshot,
        wiki,
        only=only,
        today=datetime.date.today().isoformat(),
        release_notes=release_notes,
        report_path=report_path,
        history=history,
        renames=renames,
        gates=gates,
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
    (:func:`history_loader`). The pure stage is :func:`bot.commands.audit.plan_audit`. The report is a sync's
    (:func:`run_report`: ``publish: "none"``, ``result``, ``pages_written: []``, ``pull_request: null``)
    plus the ``audit`` object; a failed audit writes ``result: failed`` with the ``error``, as a sync
    does, then raises the :class:`~bot.errors.KepSyncError` subclass.
    """
    from bot.commands.audit import plan_audit

    config = config.model_copy(update={"publish": "none"})
    snapshot = audit = None
    try:
        upstream = open_upstream(config, counter)
        snapshot = load_enhancements(config, counter, upstream)
        history, renames = history_loader(config, snapshot, counter, upstream)
        base = _read(open_wiki(config, counter), config)
        loader = release_notes_loader(config, counter)
        gates = gate_lifecycle_loader(config, counter)
        audit = plan_audit(
            config,
            snapshot,
            base.pages,
            loader(None) if loader else None,
            only=only,
            history=history,
            renames=renames,
            gates=gates,
            gate_history=gate_history_loader(config, snapshot) if loader or gates else None,
            records=records_of(config, counter),
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
