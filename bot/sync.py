"""One sync run wired from a :class:`~bot.config.Config`: the only module that drives the pipeline.

    snapshot = load_enhancements(config)            # sources -> model
    wiki = open_wiki(config)                         # a wiki backend: directory | git clone | GitHub
    base = wiki.read()                               # the pages at the base
    plan = plan_sync(config, snapshot, base.pages)   # wiki -> diff / evidence -> changelog (pure)
    landing = wiki.land(plan, replan)                # publish; replan: for a base that moved

Nothing below imports this module; :mod:`bot.cli` and :mod:`bot.job` call :func:`run_sync`.
"""

from __future__ import annotations

import datetime
import json
import os
import time
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from bot.config import Config
from bot.errors import ConfigError, KepSyncError, PublishError
from bot.plan import SyncPlan, plan_sync
from bot.publish.files import write_files
from bot.sources.enhancements import load_snapshot
from bot.wiki.backends import Base, Landing, Wiki
from bot.wiki.backends.directory import DirectoryWiki

if TYPE_CHECKING:
    from bot.audit import AuditPlan
    from bot.history.provenance import History
    from bot.history.renames import Rename
    from bot.http import RequestCounter
    from bot.model.snapshot import Snapshot
    from bot.evidence.notes import ReleaseNotes


#: What :func:`run_sync` did: the plan that landed, the pages ``written``, the pull request ``url`` and
#: ``blocked`` (see :class:`~bot.wiki.backends.Landing`); for ``--publish none`` the plan and nothing else.
SyncOutcome = Landing


def release_notes_loader(config: Config, counter: RequestCounter | None = None
                         ) -> Callable[[Collection[str] | None], ReleaseNotes] | None:
    """A loader ``wanted releases -> ReleaseNotes`` for ``config.release_notes.source`` (token from
    ``GITHUB_TOKEN``), or ``None`` when release notes are off (``source: ""``)."""
    if not config.release_notes.source:
        return None

    def load(wanted: Collection[str] | None) -> ReleaseNotes:  # None: every release
        from bot.sources.release_notes import load_release_notes

        return load_release_notes(config.release_notes.source, Path(config.cache_dir).expanduser(), wanted,
                                  api_url=config.github.api_url, token=os.environ.get("GITHUB_TOKEN") or None,
                                  counter=counter)

    return load


def load_enhancements(config: Config, counter: RequestCounter | None = None) -> Snapshot:
    """The snapshot named by ``config.enhancements`` (token from ``GITHUB_TOKEN`` for ``github:``)."""
    return load_snapshot(config.enhancements, Path(config.cache_dir).expanduser(), api_url=config.github.api_url,
                         token=os.environ.get("GITHUB_TOKEN") or None, counter=counter)


def history_loader(config: Config, snapshot: Snapshot, counter: RequestCounter | None = None
                   ) -> tuple[Callable[[Mapping[str, Collection[str]]], History] | None, dict[tuple[int, str], Rename]]:
    """``(history loader for plan_sync, renamed KEP directories)`` for ``config.enhancements`` at the
    snapshot's revision.

    Git sources (a checkout, URL or bundle) read the local clone: the log and
    the renames now, the field timelines of the changed kep.yaml files when the
    loader is called (``{path: tracked fields}``; only the versions provenance needs are read). ``github:`` sources send one commits-API request per
    changed kep.yaml (at most ``provenance.max_requests``). The loader is
    ``None`` (no provenance, no report keys) for a source without history (a
    plain directory, a tarball) and when ``provenance.enabled`` is false;
    renamed directories come from a git source's log either way.
    """
    from bot.history.provenance import History
    from bot.history.renames import renamed_dirs
    from bot.sources.enhancements import parse_source
    from bot.sources.history import github_last_commits, read_history

    source = parse_source(config.enhancements)
    git = read_history(source.kind, source.location, Path(config.cache_dir).expanduser(), snapshot.revision)
    renames = renamed_dirs(git.log()) if git is not None else {}
    if not config.provenance.enabled:
        return None, renames
    if git is not None:
        return (lambda wanted: History("git", timelines=git.recent(wanted))), renames
    if source.kind != "github" or not snapshot.revision:
        return None, renames

    asked: dict[str, History] = {}  # a replan (the wiki base moved) asks again for the same files: no new requests

    def from_github(paths: Mapping[str, Collection[str]]) -> History:
        from bot.http import make_client

        key = "\n".join(sorted(paths))
        if key not in asked:
            with make_client(os.environ.get("GITHUB_TOKEN") or None, counter=counter) as client:
                last, sent = github_last_commits(client, config.github.api_url, source.location, snapshot.revision,
                                                 paths, config.provenance.max_requests)
            asked[key] = History("github", last=last, requests=sent)
        return asked[key]

    return from_github, renames


def open_wiki(config: Config, counter: RequestCounter | None = None, *, env: Mapping[str, str] | None = None,
              sleep: Callable[[float], None] = time.sleep, seconds_between_writes: float | None = None) -> Wiki:
    """The wiki backend for ``config.publish``: GitHub for ``github`` (and for ``none`` with ``wiki.repo`` set,
    read-only), the git clone at ``wiki.dir`` for ``git``, else the directory ``wiki.dir``.

    ``env``, ``sleep`` and ``seconds_between_writes`` go to
    :meth:`bot.wiki.backends.github.GitHubWiki.connect` (tests). Raises :class:`~bot.errors.ConfigError`
    for ``github`` without ``wiki.repo`` or credentials.
    """
    if config.publish == "github" or (config.publish == "none" and config.wiki.repo):
        from bot.wiki.backends.github import GitHubWiki

        return GitHubWiki.connect(config, counter, env, sleep, seconds_between_writes,
                                  read_only=config.publish == "none")
    if config.publish == "git":
        from bot.wiki.backends.git import GitWiki

        return GitWiki(config, Path(config.wiki.dir))
    return DirectoryWiki(Path(config.wiki.dir), config.pages_to_read())


def sync_snapshot(config: Config, snapshot: Snapshot, wiki: Wiki, *, only: Collection[int] | None = None,
                  today: str | None = None,
                  release_notes: ReleaseNotes | Callable[[Collection[str]], ReleaseNotes] | None = None,
                  report_path: Path | None = None,
                  history: History | Callable[[Mapping[str, Collection[str]]], History] | None = None,
                  renames: Mapping[tuple[int, str], Rename] | None = None) -> SyncOutcome:
    """Read the pages from ``wiki``, plan against ``snapshot`` and, unless ``config.publish`` is ``none``, land.

    ``only``, ``today``, ``release_notes``, ``history`` and ``renames`` go to :func:`bot.plan.plan_sync`.
    The JSON report (:func:`run_report`) goes to ``report_path`` when given, after landing, from the plan
    that landed; for ``files`` a first report saying nothing was written yet goes there before any page
    is written (so a bad ``--report`` writes no page). A failed run still writes its report
    (``result: failed``, ``error``) when it can, then raises. Raises a
    :class:`~bot.errors.KepSyncError` subclass on failure, leaving the wiki untouched.
    """

    def replan(base: Base) -> SyncPlan:
        return plan_sync(config, snapshot, base.pages, only=only, today=today, release_notes=release_notes,
                         max_chars=base.max_chars, history=history, renames=renames)

    plan = None
    try:
        plan = replan(_read(wiki, config))
        if config.publish == "none":
            landing = SyncOutcome(plan, [], "")
        else:
            if config.publish == "files":
                _write_report(report_path, run_report(config, snapshot, plan, None,
                                                      error="stopped before the pages were written"))
            landing = wiki.land(plan, replan)
    except KepSyncError as exc:
        if not isinstance(exc, _ReportError):
            write_failure_report(report_path, config, snapshot, plan, exc)
        raise
    _write_report(report_path, run_report(config, snapshot, landing.plan, landing))
    return SyncOutcome(landing.plan, landing.written, landing.url, landing.blocked)


def run_sync(config: Config, *, only: Collection[int] | None = None, report_path: Path | None = None,
             counter: RequestCounter | None = None) -> SyncOutcome:
    """Run one sync end to end and publish per ``config.publish`` (:func:`sync_snapshot` on
    :func:`load_enhancements` and :func:`open_wiki`); ``counter`` counts HTTP requests.

    ``none`` writes nothing (with ``wiki.repo`` set it reads the pages from that repository's base
    branch through the API, read-only; else from ``wiki.dir``); ``files`` rewrites changed pages in
    place (atomic); ``git`` commits on the bot branch of the clone at ``wiki.dir``; ``github`` opens
    or updates the pull request on ``wiki.repo``. A run that fails before it has a plan still writes
    the report (``result: failed``) to ``report_path`` when it can.
    """
    snapshot = None
    try:
        snapshot = load_enhancements(config, counter)
        history, renames = history_loader(config, snapshot, counter)
        wiki = open_wiki(config, counter)
    except KepSyncError as exc:
        write_failure_report(report_path, config, snapshot, None, exc)
        raise
    return sync_snapshot(config, snapshot, wiki, only=only, today=datetime.date.today().isoformat(),
                         release_notes=release_notes_loader(config, counter), report_path=report_path,
                         history=history, renames=renames)


def _read(wiki: Wiki, config: Config) -> Base:
    """``wiki.read()``; a missing coverage or digest page is named as ``coverage.page`` / ``digest.page``,
    not ``wiki.pages``."""
    try:
        return wiki.read()
    except ConfigError as exc:
        for key, page in (("coverage.page", config.coverage.page), ("digest.page", config.digest.page)):
            prefix = f"wiki.pages (--page) {page!r}: "
            if page and page not in config.wiki.pages and str(exc).startswith(prefix):
                raise ConfigError(f"{key} {page!r}: {str(exc)[len(prefix):]}") from None
        raise


def run_audit(config: Config, *, only: Collection[int] | None = None, report_path: Path | None = None,
              counter: RequestCounter | None = None) -> AuditPlan:
    """Audit the pages (``kep-sync audit``): every check on every row; nothing is written but ``report_path``.

    The pages are read as ``--publish none`` reads them (``wiki.repo`` through the API, read-only; else
    ``wiki.dir``), whatever ``config.publish`` says; the release notes of every release the source has
    are read (``release_notes.source``). The pure stage is :func:`bot.audit.plan_audit`. Raises a
    :class:`~bot.errors.KepSyncError` subclass on failure.
    """
    from bot.audit import plan_audit

    config = config.model_copy(update={"publish": "none"})
    snapshot = load_enhancements(config, counter)
    base = _read(open_wiki(config, counter), config)
    loader = release_notes_loader(config, counter)
    audit = plan_audit(config, snapshot, base.pages, loader(None) if loader else None, only=only)
    _write_report(report_path, audit.report)
    return audit


def run_report(config: Config, snapshot: Snapshot | None, plan: SyncPlan | None, landing: Landing | None, *,
               error: str = "") -> dict:
    """The ``--report`` JSON object of a run: :func:`bot.changelog.report` of the ``plan`` plus what happened.

    - ``publish``: the mode; ``result``: ``ok``, ``blocked`` (``landing.blocked``) or ``failed`` (``error``
      given, or no ``landing``); ``error`` only on failure; ``pull_request``: the URL or ``null``;
    - ``pages_written``: the pages this run wrote (``files``) or committed (``git``, ``github``), sorted;
    - each change: ``proposed`` (the plan changes this row: ``Change.applied``) and ``applied``, true only
      when its page is in ``pages_written``, so ``--publish none``, a failed and a blocked run apply nothing.

    Without a plan (the run failed before planning) ``changes`` is empty and ``problems`` are the
    snapshot's, if it was read.
    """
    from bot import changelog

    if plan is not None:
        base = plan.report
    elif snapshot is not None:
        base = changelog.report(snapshot, [], snapshot.all_problems())
    else:
        base = {"revision": "", "changes": [], "problems": []}
    failed = bool(error) or landing is None
    written = sorted(landing.written) if landing is not None and not failed and not landing.blocked else []
    result = "failed" if failed else "blocked" if landing.blocked else "ok"
    out = {**base, "changes": [{**c, "proposed": c["applied"], "applied": c["applied"] and c["page"] in written}
                               for c in base["changes"]],
           "publish": config.publish, "result": result, "pages_written": written,
           "pull_request": (landing.url or None) if landing is not None and config.publish == "github" else None}
    if failed:
        out["error"] = error or "the run did not finish"
    return out


def write_failure_report(path: Path | None, config: Config, snapshot: Snapshot | None, plan: SyncPlan | None,
                         exc: Exception) -> None:
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
    data = (json.dumps(report, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")
    try:
        write_files({path: data}, must_exist=False)
    except PublishError as exc:
        raise _ReportError(f"report {exc}") from None
