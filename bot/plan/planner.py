"""Planning, the pure core of a run: KEPs and page bytes in; new page bytes, changes, changelog and report out.

:func:`plan_sync` parses each page (:mod:`bot.wiki.matrix`), diffs it against
the snapshot (:mod:`bot.plan.diff`), reviews the proposed changes against release
notes when given (:mod:`bot.plan.evidence`) and renders the changelog and JSON report
(:mod:`bot.plan.changelog.body`). No I/O here except a release-notes loader the caller
passes in; :mod:`bot.commands.sync` does the reading and the publication.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import NamedTuple

from bot.errors import ConfigError, WikiError
from bot.model.finding import Finding
from bot.model.gates import Lifecycle
from bot.model.history.declared import GateOrigins
from bot.model.history.provenance import History
from bot.model.history.renames import Rename
from bot.model.kep import Kep, Problem
from bot.model.notes import ReleaseNotes
from bot.model.release_calendar import Records
from bot.model.snapshot import Snapshot
from bot.plan import digest as digest_mod
from bot.plan import reviews
from bot.plan.changelog import body as changelog_mod
from bot.plan.changelog import rows as changelog_rows
from bot.plan.changelog import signals as changelog_signals
from bot.plan.changelog.body import Changelog
from bot.plan.changelog.controls import controls
from bot.plan.diff import Change, PageDiff, diff_page
from bot.plan.evidence import gates as gates_mod
from bot.plan.evidence import released, releases_needed
from bot.plan.evidence.stage_state import PlannedStage
from bot.plan.reviews import Scope
from bot.plan.settings import PlanSettings
from bot.plan.tracking import Tracking, options_from, track
from bot.plan.tracking import render as tracking_render
from bot.plan.watch import render as watch_render
from bot.plan.watch.judge import Watch
from bot.plan.watch.scope import Places, places
from bot.redact import without_userinfo
from bot.wiki import frontmatter
from bot.wiki.ignore import marker_problems, mask_page, row_ignores, unmask
from bot.wiki.matrix import MatrixPage, parse_page
from bot.wiki.pages import same_page


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
    the ``problems`` to report (pages' and untrusted values), the ``changelog`` and the JSON ``report``;
    ``generated``: ``(page, section text)`` of each digest section this plan rewrites (bytes no
    :class:`Change` describes; :func:`bot.publish.pull_request.fingerprint` covers them); ``states``: the
    planned stages of the KEPs reviewed (:mod:`bot.plan.evidence.stage_state`; empty without release notes
    and a gate list) and ``gate_list``: the gate list as the changelog names it (``""`` without one);
    ``needs_a_look``: the items of the changelog's Needs a look section (:func:`bot.plan.changelog.signals.needs_a_look`;
    empty when nothing needs judgment or without release notes and a gate list)."""

    snapshot: Snapshot
    pages: list[PageResult]
    changes: list[Change]
    problems: list[Problem]
    changelog: Changelog
    report: dict[str, object]
    discrepancies: tuple[Finding, ...] = ()
    generated: tuple[tuple[str, str], ...] = ()
    states: tuple[PlannedStage, ...] = ()
    gate_list: str = ""
    needs_a_look: tuple[str, ...] = ()

    def changed_pages(self) -> dict[str, bytes]:
        """``{path: new bytes}`` of the pages whose bytes differ."""
        return {p.path: p.new for p in self.pages if p.changed}


def decode_page(path: str, data: bytes, key: str = "") -> str:
    """Page bytes as text; raises :class:`WikiError` naming the page and byte offset when not UTF-8, or
    with ``key`` (``"coverage.page"``: a page kep-sync only reads, named by a setting) a
    :class:`ConfigError` naming that key, as for a missing page."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        why = f"not UTF-8 ({exc.reason} at byte {exc.start})"
        if key:
            raise ConfigError(f"{key} {path!r}: {why}") from None
        raise WikiError(f"{path}: {why}; page not touched") from None


def plan_sync(
    config: PlanSettings,
    snapshot: Snapshot,
    pages: dict[str, bytes],
    *,
    only: Collection[int] | None = None,
    today: str | None = None,
    release_notes: ReleaseNotes | Callable[[Collection[str]], ReleaseNotes] | None = None,
    max_chars: int = changelog_mod.DEFAULT_MAX_BODY_CHARS,
    history: History | Callable[[Mapping[str, Collection[str]], Collection[str]], History] | None = None,
    renames: Mapping[tuple[int, str], Rename] | None = None,
    review_rows: bool = False,
    gates: Lifecycle | Callable[[Collection[str]], Lifecycle] | None = None,
    page_url: str = "",
    watch: Callable[[Sequence[Kep], Places], Watch] | None = None,
    gate_history: GateOrigins | Callable[[Collection[str]], GateOrigins] | None = None,
    records: Records | None = None,
) -> SyncPlan:
    """Diff every page against ``snapshot`` and build the changelog (pure unless ``release_notes``, ``history``
    or ``gates`` is a loader).

    ``pages``: ``{relative path: bytes}`` in the configured order (the read-only ``coverage.page`` among them
    when set: read by the tracking stage, never written); ``only``: KEP numbers to consider; ``today``
    (``YYYY-MM-DD``) is used only when ``front_matter.date_key`` is set. ``release_notes``: notes already read,
    or a loader called once with the releases the changed KEPs' milestones name
    (:meth:`bot.commands.inputs.Inputs.release_notes`); a needed release the source has no notes for becomes a
    problem (``with_missing``); ``None``: no evidence. ``max_chars`` caps the changelog body (characters),
    cut at a table row boundary. ``history``: the upstream history of the changed kep.yaml files, or a loader
    called once with ``{kep.yaml path: tracked fields}`` of the changes and the paths of the proposed ones
    (:meth:`bot.commands.inputs.Inputs.provenance`); each change then carries ``upstream`` and the report a
    ``provenance`` block. ``renames``: KEP directories renamed upstream
    (:func:`bot.model.history.renames.renamed_dirs`), applied per ``config.renames``. The ``digest.page``
    gets its digest section rewritten (:func:`digest_page`); when it is also a ``wiki.pages`` entry, its rows
    outside the section are synced as on any matrix page and the section is rewritten last
    (:func:`_with_digest`). ``review_rows``: the release-note review covers the KEP of every row
    (``kep-sync audit``). ``gates``: the feature-gate lifecycle, or a loader called once with the releases
    the pages' KEPs name (:meth:`bot.commands.inputs.Inputs.gate_lifecycle`); each change then carries its
    Shipped mark, the gate findings join "Needs review", ``promote_when: released`` holds promotions whose
    release has not shipped, and ``gate_lifecycle.column`` writes the Shipped column
    (:mod:`bot.plan.evidence.gates`). ``page_url``: the pages' web address at the base revision
    (:func:`page_url`). ``watch``: page KEPs -> the watch of the release in progress
    and their rows (:func:`bot.plan.watch.scope.places`)
    (:func:`bot.commands.watch_inputs.sync_watch`), shown folded in the body and as the report's ``watch``.
    ``records``: the release team's records (``release.sig_release``), whose freeze exceptions explain a released
    milestone rewritten in "Needs a look".
    ``gate_history``: when each kep.yaml first declared its gates, or a loader called once
    with the kep.yaml paths of the KEPs declaring a gate the pages' KEPs share
    (:meth:`bot.commands.inputs.Inputs.gate_origins`); with release notes or a gate list, a shared gate then
    belongs to the KEP that declared it first (:mod:`bot.plan.evidence.ownership`). With release notes or a
    gate list the report gains ``planned_stages`` and the changelog leads with "Needs a look"
    (:mod:`bot.plan.changelog.signals`). The changelog of a pull request (``publish`` git or github) ends with the Controls
    footer (:mod:`bot.plan.changelog.controls`). Raises :class:`WikiError` for a page that is not UTF-8
    (:class:`ConfigError` for the ``coverage.page``).
    """
    lifecycle = _gate_lifecycle(config, snapshot, pages, gates)
    scope = Scope(config, snapshot, only, lifecycle)
    diffed = _diff_pages(scope, pages, renames, _hold(config, lifecycle, release_notes))
    results = diffed.results
    on_pages = {k.path: k for r in results for k in r.diff.keps}
    reviewed = reviews.review(
        scope,
        reviews.Diffed(on_pages, diffed.changes, diffed.problems, diffed.numbers),
        release_notes,
        history,
        review_rows,
        gate_history,
    )
    changes, problems, found, gate_found = reviewed.changes, reviewed.problems, reviewed.found, reviewed.gate_found
    tracking = _track(config, snapshot, diffed.parsed, changes, results, pages, only)
    results = [
        r._replace(new="\n".join(tracking.lines[r.path]).encode("utf-8")) if r.path in tracking.lines else r
        for r in results
    ]
    matrix = {p.path for p in diffed.parsed}
    results, dated = _date_pages(config, results, matrix, today, problems)
    results = [
        _with_digest(config, snapshot, r, pages[r.path], problems)
        if r.path in matrix and _is_digest(config, r.path)
        else r
        for r in results
    ]
    changes = changes + tracking.changes
    problems = problems + tracking.problems
    watched = (
        watch(list({k.path: k for r in results for k in r.diff.keps}.values()), places(snapshot, diffed.parsed, only))
        if watch is not None
        else None
    )
    generated = _generated(config, results)
    report = reviews.report(scope, reviewed._replace(changes=changes, problems=problems))
    touched = {c.kep_path for c in changes}
    inputs = changelog_mod.ChangelogInputs(
        involved_problems=[p for k in snapshot.all_keps() if k.path in touched for p in k.problems],
        discrepancies=found,
        gate_findings=gate_found,
        callouts=tracking_render.callouts(tracking),
        extra=tracking_render.sections(tracking, snapshot.revision, config.links.enhancements, config.candidates.limit),
        front_matter=dated,
        generated=[page for page, _ in generated],
        controls=controls(config.steering()) if config.publish in ("git", "github") else (),
        web_url=config.links.enhancements,
        page_url=page_url,
        max_chars=max_chars,
        watch=watch_render.pr_sections(watched, config.links.enhancements),
    )
    look: tuple[str, ...] = ()
    if reviewed.states is not None:
        signalled = changelog_signals.Signals(
            reviewed.states,
            changelog_signals.gate_list_name(lifecycle),
            found is not None,
            [
                *(
                    f
                    for f in found or ()
                    if (f.kep_path, f.release) not in reviewed.settled or f.kind != "not-in-notes"
                ),
                *(gate_found or ()),
            ],
            exceptions=[e for found_in in records.exceptions.values() for e in found_in] if records is not None else (),
            slips=reviewed.slips,
            moves=reviewed.moves,
            every_row=review_rows,
            held=changelog_rows.held_cells(problems),
        )
        links = changelog_rows.Links(
            config.links.enhancements, snapshot.revision, page_url, changelog_rows.one_page(changes)
        )
        layout = changelog_signals.layout(snapshot, changes, links, signalled)
        inputs = inputs._replace(layout=layout)
        look = tuple(changelog_signals.needs_a_look(layout))
    log = changelog_mod.render(snapshot, changes, problems, inputs)
    report.update(tracking_render.report_keys(tracking, production=bool(config.production_tables)))
    if watched is not None:
        report["watch"] = watch_render.report_block(watched, config.links.enhancements)
    return SyncPlan(
        snapshot,
        results,
        changes,
        problems,
        log,
        report,
        tuple(found or ()),
        generated,
        tuple(reviewed.states or ()),
        changelog_signals.gate_list_name(lifecycle),
        look,
    )


class _Diffed(NamedTuple):
    """The pages diffed: a ``PageResult`` per page written, their ``changes`` and ``problems``, the
    ``parsed`` matrix pages and the KEP ``numbers`` their rows name (rows left as is included)."""

    results: list[PageResult]
    changes: list[Change]
    problems: list[Problem]
    parsed: list[MatrixPage]
    numbers: set[int]


def _diff_pages(
    scope: Scope,
    pages: dict[str, bytes],
    renames: Mapping[tuple[int, str], Rename] | None,
    hold: Callable[[Kep, Change], str] | None,
) -> _Diffed:
    """Diff every matrix page of ``pages`` against the snapshot; a digest page that is no ``wiki.pages`` entry
    is only regenerated, the read-only ``coverage.page`` is skipped (input of the tracking stage only)."""
    config, snapshot = scope.config, scope.snapshot
    out = _Diffed([], [], [], [], set())
    for path, data in pages.items():
        if _is_digest(config, path) and not same_page(path, config.wiki.pages):
            out.results.append(digest_page(config, snapshot, path, data, out.problems))
            continue
        if config.coverage.page and same_page(path, [config.coverage.page]):
            continue
        # Every stage below reads the matrix page as _matrix_text gives it (old bytes too, so "changed"
        # means rows); on the digest page, _with_digest fills the emptied section last.
        text = _matrix_text(config, path, data)
        masked_text, masked = mask_page(text)
        out.problems.extend(marker_problems(path, masked))
        page = parse_page(path, masked_text, config.aliases())
        out.parsed.append(page)
        out.numbers.update(row.number for row in page.rows)
        out.numbers.update(row.number for row in page.left)  # a row left as is: its own problem says why
        diff = diff_page(
            page,
            snapshot,
            gates_owned=config.feature_gates == "owned",
            only=scope.only,
            renames=renames,
            apply_renames=config.renames == "apply",
            sync_renamed=config.renames == "owned-cells",
            hold=hold,
            ignores=row_ignores(masked),
            rules=config.ignore,
        )
        lines = diff.lines
        if scope.lifecycle is not None and config.shipped_column():
            rows = gates_mod.RowScope(scope.only, row_ignores(masked), config.ignore)
            lines, column = gates_mod.shipped_column(page, lines, snapshot, scope.lifecycle, snapshot.all_keps(), rows)
            diff = diff._replace(changes=diff.changes + column)
        diff = diff._replace(lines=unmask(lines, masked))
        out.results.append(PageResult(path, text.encode("utf-8"), "\n".join(diff.lines).encode("utf-8"), diff))
        out.changes.extend(diff.changes)
        out.problems.extend(diff.problems)
    return out


def page_url(config: PlanSettings, base_revision: str) -> str:
    """``https://HOST/OWNER/REPO/blob/SHA/`` for a wiki on GitHub (``wiki.repo`` set and ``publish: github``)
    read at ``base_revision``; ``""`` otherwise. HOST is ``github.com`` for the public API, else the
    ``github.api_url`` host (GitHub Enterprise Server serves the web pages there)."""
    if not (config.wiki.repo and config.publish == "github" and base_revision):
        return ""
    api = without_userinfo(config.github.api_url).rstrip("/")
    host = "https://github.com" if api == "https://api.github.com" else api.removesuffix("/api/v3")
    return f"{host}/{config.wiki.repo}/blob/{base_revision}/"


def _gate_lifecycle(
    config: PlanSettings,
    snapshot: Snapshot,
    pages: dict[str, bytes],
    gates: Lifecycle | Callable[[Collection[str]], Lifecycle] | None,
) -> Lifecycle | None:
    """``gates``, or what its loader gives for the releases the milestones of the pages' KEPs name."""
    if gates is None or isinstance(gates, Lifecycle):
        return gates
    numbers = set()
    for path, data in pages.items():
        if path in config.wiki.pages:
            numbers |= {row.number for row in parse_page(path, _matrix_text(config, path, data), config.aliases()).rows}
    return gates(releases_needed(k for k in snapshot.all_keps() if k.number in numbers))


def _hold(
    config: PlanSettings,
    lifecycle: Lifecycle | None,
    notes: ReleaseNotes | Callable[[Collection[str]], ReleaseNotes] | None,
) -> Callable[[Kep, Change], str] | None:
    """The ``hold`` of :func:`bot.plan.diff.diff_page` for ``promote_when: released``: releases shipped per the gate
    lists, and per release notes already read (every release with notes but the newest); ``None`` otherwise."""
    if lifecycle is None or config.gate_lifecycle.promote_when != "released":
        return None
    shipped = set(lifecycle.shipped)
    if isinstance(notes, ReleaseNotes):
        shipped |= released(notes.available)
    return lambda kep, change: gates_mod.pending_release(kep, change, shipped)


def _track(
    config: PlanSettings,
    snapshot: Snapshot,
    parsed: list[MatrixPage],
    changes: list[Change],
    results: list[PageResult],
    pages: dict[str, bytes],
    only: Collection[int] | None = None,
) -> Tracking:
    """The tracking stage (:func:`bot.plan.tracking.track`) for this plan. A ``candidates.add_to.page`` not
    among ``pages`` (a wiki.pages entry read once under an earlier name for the same file,
    :func:`bot.publish.directory.read_wiki_pages`) is a problem."""
    coverage = None
    if config.coverage.page:
        found = next((p for p in pages if posixpath.normpath(p) == posixpath.normpath(config.coverage.page)), None)
        if found is not None:
            coverage = (found, decode_page(found, pages[found], "coverage.page"))
    lines = {r.path: r.new.decode("utf-8").split("\n") for r in results}
    tracking = track(snapshot, parsed, changes, lines, options_from(config), coverage, only)
    add = config.candidates.add_to
    if add and not any(posixpath.normpath(p) == posixpath.normpath(add.page) for p in pages):
        tracking = tracking._replace(
            problems=[
                *tracking.problems,
                Problem(
                    add.page,
                    "candidates.add_to.page",
                    "the same file as an earlier wiki.pages entry, which is read and "
                    "written under that name; no rows added (name that entry in candidates.add_to.page)",
                ),
            ]
        )
    return tracking


def _date_pages(
    config: PlanSettings, results: list[PageResult], matrix: Collection[str], today: str | None, problems: list[Problem]
) -> tuple[list[PageResult], list[tuple[str, str, str, str]]]:
    """``results`` with ``front_matter.date_key`` set to ``today`` on each ``matrix`` page whose bytes this
    run changed (rows rewritten or added), and ``(page, key, old, new)`` of each date written; a date
    kept because its format is unknown (:func:`bot.wiki.frontmatter.set_date`) is added to ``problems``."""
    key = config.front_matter.date_key
    if not key or not today:
        return results, []
    out, dated = [], []
    for r in results:
        if r.path in matrix and r.changed:
            update = frontmatter.set_date(r.new.decode("utf-8").split("\n"), key, today)
            if update.problem:
                problems.append(Problem(r.path, "front_matter.date_key", update.problem))
            if update.new:
                dated.append((r.path, key, update.old, update.new))
                r = r._replace(new="\n".join(update.lines).encode("utf-8"))
        out.append(r)
    return out, dated


def _matrix_text(config: PlanSettings, path: str, data: bytes) -> str:
    """A matrix page's bytes ``data`` as the text its rows are read from: on the ``digest.page`` the lines of
    the digest section are emptied (:func:`bot.plan.digest.blank_section`), as its generated tables are
    no rows of the page. Raises :class:`WikiError` when ``data`` is not UTF-8."""
    text = decode_page(path, data)
    return digest_mod.blank_section(text) if _is_digest(config, path) else text


def _is_digest(config: PlanSettings, path: str) -> bool:
    """True when the wiki-relative ``path`` is the ``digest.page`` (``./d.md`` is ``d.md``)."""
    return bool(config.digest.page) and same_page(path, [config.digest.page])


def _generated(config: PlanSettings, results: list[PageResult]) -> tuple[tuple[str, str], ...]:
    """``(page, section text)`` of the digest page when this plan changes its digest section
    (:attr:`SyncPlan.generated`); ``()`` when it keeps it."""

    def section(data: bytes) -> str:
        return digest_mod.section_text(data.decode("utf-8"))

    return tuple(
        (r.path, section(r.new)) for r in results if _is_digest(config, r.path) and section(r.old) != section(r.new)
    )


def digest_page(
    config: PlanSettings, snapshot: Snapshot, path: str, data: bytes, problems: list[Problem]
) -> PageResult:
    """The ``digest.page`` with its section rewritten (:func:`_rewritten_digest`); a page without one pair
    of markers outside code is reported in ``problems`` and kept byte-identical."""
    text = decode_page(path, data)
    new = _rewritten_digest(config, snapshot, text)
    if new is None:
        problems.append(Problem(path, "digest.page", str(digest_mod.section_span(text))))
        new = text
    return PageResult(path, data, new.encode("utf-8"), PageDiff([], [], [], new.split("\n")))


def _with_digest(
    config: PlanSettings, snapshot: Snapshot, result: PageResult, data: bytes, problems: list[Problem]
) -> PageResult:
    """A matrix page's ``result`` (read with its digest section emptied) with the section rewritten in its
    new bytes (:func:`_rewritten_digest`) and ``data``, the page as read, put back as its old bytes. A page
    without one pair of markers outside code (never emptied) keeps its synced rows; ``problems`` gets why."""
    text = result.new.decode("utf-8")
    new = _rewritten_digest(config, snapshot, text)
    if new is None:
        why = digest_mod.matrix_page_why(str(digest_mod.section_span(text)))
        problems.append(Problem(result.path, "digest.page", why))
        new = text
    return result._replace(old=data, new=new.encode("utf-8"))


def _rewritten_digest(config: PlanSettings, snapshot: Snapshot, text: str) -> str | None:
    """``text`` with its digest section rewritten (:func:`bot.plan.digest.rewrite_section`) from
    ``snapshot`` per ``config.digest``; ``None`` when it has no one pair of markers outside code."""
    d = config.digest
    block = digest_mod.render_markdown(
        digest_mod.digest(snapshot, d.sig, d.first, d.last),
        d.sig,
        d.first,
        d.last,
        snapshot.revision,
        config.links.enhancements,
        snapshot.source,
    )
    return digest_mod.rewrite_section(text, block)
