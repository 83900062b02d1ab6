"""One sync run wired from a :class:`~bot.config.Config`: fetch -> model -> wiki -> diff -> changelog -> publish.

:func:`plan_sync` is the pure core (KEPs and page bytes in, new page bytes
and changelog out); :func:`run_sync` adds the I/O at both ends.
"""

from __future__ import annotations

import datetime
import json
import os
from collections.abc import Callable, Collection
from pathlib import Path
from typing import NamedTuple

from bot import changelog as changelog_mod
from bot.changelog import Changelog
from bot.config import Config
from bot.diff import Change, PageDiff, diff_page, kep_id
from bot.evidence import Discrepancy, releases_needed
from bot.evidence import review as review_notes
from bot.errors import ConfigError, PublishError, WikiError
from bot.http import RequestCounter
from bot.kep import Problem
from bot.publish.files import publish_files, write_files
from bot.snapshot import Snapshot
from bot.sources.enhancements import load_snapshot
from bot.sources.release_notes import ReleaseNotes, load_release_notes, with_missing
from bot.wiki.matrix import parse_page


class PageResult(NamedTuple):
    """One page: its ``path`` (relative to the wiki), ``old`` and ``new`` bytes, and the :class:`PageDiff`."""

    path: str
    old: bytes
    new: bytes
    diff: PageDiff

    @property
    def changed(self) -> bool:
        """True when the new bytes differ from the old (the page needs writing)."""
        return self.old != self.new


class SyncPlan(NamedTuple):
    """Everything one run decided: the ``snapshot``, each page's result, all ``changes``,
    the ``problems`` to report (pages' and untrusted values), the ``changelog`` and the JSON ``report``."""

    snapshot: Snapshot
    pages: list[PageResult]
    changes: list[Change]
    problems: list[Problem]
    changelog: Changelog
    report: dict
    discrepancies: tuple[Discrepancy, ...] = ()

    def changed_pages(self) -> dict[str, bytes]:
        """``{path: new bytes}`` of the pages whose bytes differ."""
        return {p.path: p.new for p in self.pages if p.changed}


class SyncOutcome(NamedTuple):
    """What :func:`run_sync` did: the ``plan``, the pages ``written`` (files rewritten, or pages in the commit
    made this run; ``[]`` when nothing was committed), the pull request ``url`` (if any) and ``blocked``: True
    when a commit kep-sync did not make on the bot branch stopped the update (a human must act)."""

    plan: SyncPlan
    written: list[str]
    url: str
    blocked: bool = False


def decode_page(path: str, data: bytes) -> str:
    """Page bytes as text; raises :class:`WikiError` naming the page and byte offset when not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WikiError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start}); page not touched") from None


def set_front_matter_date(lines: list[str], key: str, today: str) -> list[str]:
    """Set ``key: today`` inside a leading ``---`` front matter block, keeping ``\\r``; no block, no change."""
    if not lines or lines[0].rstrip("\r") != "---":
        return lines
    out = list(lines)
    for i in range(1, len(out)):
        bare = out[i].rstrip("\r")
        if bare == "---":
            break
        if bare.startswith(f"{key}:"):
            out[i] = f"{key}: {today}" + ("\r" if out[i].endswith("\r") else "")
            break
    return out


def release_notes_loader(config: Config, counter: RequestCounter | None = None
                         ) -> Callable[[Collection[str]], ReleaseNotes] | None:
    """A loader ``wanted releases -> ReleaseNotes`` for ``config.release_notes.source`` (token from
    ``GITHUB_TOKEN``), or ``None`` when release notes are off (``source: ""``)."""
    from bot.http import make_client

    if not config.release_notes.source:
        return None

    def load(wanted: Collection[str]) -> ReleaseNotes:
        with make_client(os.environ.get("GITHUB_TOKEN") or None, counter=counter) as client:
            return load_release_notes(config.release_notes.source, Path(config.cache_dir).expanduser(), wanted,
                                      api_url=config.github.api_url, client=client)

    return load


def plan_sync(config: Config, snapshot: Snapshot, pages: dict[str, bytes], *,
              only: Collection[int] | None = None, today: str | None = None,
              release_notes: ReleaseNotes | Callable[[Collection[str]], ReleaseNotes] | None = None,
              max_chars: int = changelog_mod.DEFAULT_MAX_BODY_CHARS) -> SyncPlan:
    """Diff every page against ``snapshot`` and build the changelog (pure when ``release_notes`` is not a loader).

    ``pages``: ``{relative path: bytes}`` in the configured order; ``only``:
    KEP numbers to consider; ``today`` (``YYYY-MM-DD``) is used only when
    ``front_matter.date_key`` is set. ``release_notes``: notes already read, or
    a loader called once with the releases the changed KEPs' milestones name;
    when None and ``config.release_notes.source`` is set, :func:`release_notes_loader`
    reads them (I/O); when both are empty the plan carries no evidence. A needed
    release the source has no notes for becomes a problem (``with_missing``). Raises
    :class:`WikiError` for a page that is not UTF-8. ``max_chars`` caps the
    changelog body (characters), cut at a table row boundary.
    """
    results: list[PageResult] = []
    changes: list[Change] = []
    problems: list[Problem] = []
    numbers: set[int] = set()
    for path, data in pages.items():
        page = parse_page(path, decode_page(path, data), config.aliases())
        numbers.update(row.number for row in page.rows)
        diff = diff_page(page, snapshot, gates_owned=config.feature_gates == "owned", only=only)
        lines = diff.lines
        if config.front_matter.date_key and today and any(c.applied for c in diff.changes):
            lines = set_front_matter_date(lines, config.front_matter.date_key, today)
        results.append(PageResult(path, data, "\n".join(lines).encode("utf-8"), diff))
        changes += diff.changes
        problems += diff.problems
    if only is not None:
        problems += [Problem("--kep", "", f"KEP {n} is in no matrix row of the pages; nothing to do for it")
                     for n in sorted(set(only) - numbers)]
    if release_notes is None:
        release_notes = release_notes_loader(config)
    found: list[Discrepancy] | None = None
    if release_notes is not None:
        # The check is about what this run proposes: the KEPs of applied changes, not every row.
        on_pages = {k.path: k for r in results for k in r.diff.keps}
        proposed = {c.kep_path: on_pages[c.kep_path] for c in changes if c.applied and c.kep_path in on_pages}
        needed = releases_needed(proposed.values())
        release_notes = with_missing(release_notes(needed) if callable(release_notes) else release_notes, needed)
        review = review_notes(changes, list(proposed.values()), snapshot.all_keps(), release_notes.notes,
                              release_notes.available, ids={p: kep_id(snapshot, k) for p, k in proposed.items()})
        changes, found = review.changes, review.discrepancies
        problems += release_notes.problems
    touched = {c.kep_path for c in changes}
    involved = [p for k in snapshot.all_keps() if k.path in touched for p in k.problems]
    log = changelog_mod.render(snapshot, changes, problems, involved_problems=involved,
                               web_url=config.links.enhancements, discrepancies=found, max_chars=max_chars)
    report = changelog_mod.report(snapshot, changes, problems + snapshot.all_problems(), discrepancies=found)
    return SyncPlan(snapshot, results, changes, problems, log, report, tuple(found or ()))


def page_error(page: str, what: str, where: str) -> ConfigError:
    """The :class:`ConfigError` (exit 2) for a ``wiki.pages`` entry that names no page, in every publish mode.

    ``"wiki.pages (--page) 'x.md': WHAT WHERE"``, e.g. ``what`` "no such file", ``where`` "under the
    wiki directory 'wiki'" or "at main of OWNER/NAME".
    """
    return ConfigError(f"wiki.pages (--page) {page!r}: {what} {where}")


def read_wiki_pages(wiki_dir: Path, pages: list[str]) -> dict[str, bytes]:
    """Read each page under ``wiki_dir`` (a page named twice is read once).

    Raises :class:`ConfigError` (exit 2) naming ``wiki.pages`` / ``--page``
    when a page does not exist or is not a file, :class:`WikiError` when it
    cannot be read.
    """
    out: dict[str, bytes] = {}
    for rel in pages:
        path = wiki_dir / rel
        if os.path.normpath(rel) in {os.path.normpath(p) for p in out}:
            continue
        if not path.is_file():
            what = "no such file" if not path.exists() else "not a file"
            raise page_error(rel, what, f"under the wiki directory {str(wiki_dir)!r}")
        try:
            out[rel] = path.read_bytes()
        except OSError as exc:
            raise WikiError(f"{path}: cannot read wiki page: {exc.strerror or exc}") from None
    return out


def load_enhancements(config: Config, counter: RequestCounter | None = None) -> Snapshot:
    """The snapshot named by ``config.enhancements`` (token from ``GITHUB_TOKEN`` for ``github:``)."""
    from bot.http import make_client

    client = make_client(os.environ.get("GITHUB_TOKEN") or None, counter=counter)
    with client:
        return load_snapshot(config.enhancements, Path(config.cache_dir).expanduser(),
                             api_url=config.github.api_url, client=client)


def run_sync(config: Config, *, only: Collection[int] | None = None, report_path: Path | None = None,
             counter: RequestCounter | None = None) -> SyncOutcome:
    """Run one sync end to end and publish per ``config.publish``.

    ``none`` writes nothing (with ``wiki.repo`` set it reads the pages from
    that repository's base branch through the API, read-only:
    :func:`bot.publish.github.preview_github`; else from ``wiki.dir``);
    ``files`` rewrites changed pages in place (atomic). ``git`` and
    ``github`` are handled by ``bot.publish``. The
    JSON report goes to ``report_path`` when given. Raises a
    :class:`~bot.errors.KepSyncError` subclass on failure, leaving the wiki untouched.
    """
    snapshot = load_enhancements(config, counter)
    today = datetime.date.today().isoformat()
    wiki_dir = Path(config.wiki.dir)
    if config.publish == "github":
        from bot.publish.github import publish_github

        outcome = publish_github(config, snapshot, only=only, today=today, counter=counter)
    elif config.publish == "none" and config.wiki.repo:
        from bot.publish.github import preview_github

        outcome = SyncOutcome(preview_github(config, snapshot, only=only, today=today, counter=counter), [], "")
    elif config.publish == "git":
        from bot.publish.git import publish_git

        outcome = publish_git(config, snapshot, wiki_dir, only=only, today=today, counter=counter)
    else:
        outcome = SyncOutcome(plan_sync(config, snapshot, read_wiki_pages(wiki_dir, config.wiki.pages), only=only,
                                        today=today, release_notes=release_notes_loader(config, counter)), [], "")
    _write_report(report_path, outcome.plan)  # before the files publisher: a bad --report writes no page
    if config.publish == "files":
        outcome = outcome._replace(written=publish_files(wiki_dir, outcome.plan.changed_pages()))
    return outcome


def _write_report(path: Path | None, plan: SyncPlan) -> None:
    if path is None:
        return
    data = (json.dumps(plan.report, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")
    try:
        write_files({path: data}, must_exist=False)
    except PublishError as exc:
        raise PublishError(f"report {exc}") from None
