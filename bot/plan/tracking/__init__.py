"""The tracking practice beyond the rows: new KEP candidates, the production list, design-group coverage.

A pure stage between reading the pages and building the changelog:
:func:`track` takes the snapshot, the parsed matrix pages, the
changes the diff decided, the page lines as the diff left them and the
coverage page's text, and returns a :class:`Tracking`. It does no I/O.

Modules: :mod:`.candidates` (which KEPs deserve a row, ranked),
:mod:`.coverage` (design groups vs matrix rows), :mod:`.production`
(``not-production`` findings, status changes out of production),
:mod:`.rows` (opt-in new rows), :mod:`.render` (changelog sections, report keys).
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

from bot.model.finding import Finding
from bot.model.kep import Problem
from bot.model.snapshot import Snapshot, resolve
from bot.plan.diff import Change
from bot.plan.settings import PlanSettings
from bot.plan.tracking.candidates import Candidate, find_candidates
from bot.plan.tracking.coverage import Coverage, Group, check_coverage
from bot.plan.tracking.production import left_production, missing_tables, not_production
from bot.plan.tracking.rows import AddedRow, add_rows
from bot.wiki.headers import DEFAULT_ALIASES, DEFAULT_COVERAGE_ALIASES
from bot.wiki.matrix import MatrixPage, cell_gates
from bot.wiki.sections import same_heading


class Options(NamedTuple):
    """The tracking settings (``candidates``, ``production_tables``, ``coverage`` in the config).

    ``sigs``: tracked SIGs (empty: the SIGs of the KEPs on the pages); ``releases``: window size;
    ``ignore``: KEP numbers never proposed; ``add_page``/``add_table``/``add_count``/``add_reasons``: where new rows go
    (``add_page`` ``""``: none), how many at most and for which reason kinds; ``production_tables``: headings;
    ``coverage_aliases``: header aliases of
    the design-group table; ``web_url``: the enhancements repository (links in new rows); ``aliases``: the
    matrix column aliases (``columns``).
    """

    sigs: tuple[str, ...] = ()
    releases: int = 1
    ignore: tuple[int, ...] = ()
    add_page: str = ""
    add_table: str = ""
    add_count: int = 5
    add_reasons: tuple[str, ...] = ("group",)
    production_tables: tuple[str, ...] = ()
    coverage_aliases: Mapping[str, Sequence[str]] = DEFAULT_COVERAGE_ALIASES
    web_url: str = "https://github.com/kubernetes/enhancements"
    aliases: Mapping[str, Sequence[str]] = DEFAULT_ALIASES


class Tracking(NamedTuple):
    """What :func:`track` found.

    ``candidates`` ranked; ``coverage`` (``None`` without a coverage page);
    ``findings`` (``not-production``); ``left_production``: status changes to
    provisional / withdrawn; ``added``: rows appended (``add_to``) and
    ``lines``: ``{page: new lines}`` for the pages rows were appended to;
    ``changes``: one applied :class:`Change` of kind ``added`` (field ``row``)
    per appended row, so the fingerprint, title and commit message carry them;
    ``problems``: settings or page cells that could not be used.
    """

    candidates: list[Candidate]
    coverage: Coverage | None
    findings: list[Finding]
    left_production: list[Change]
    added: list[AddedRow]
    lines: dict[str, list[str]]
    changes: list[Change]
    problems: list[Problem]


def options_from(config: PlanSettings) -> Options:
    """:class:`Options` from a :class:`bot.config.Config` (its ``candidates``, ``production_tables``,
    ``coverage``, ``links`` and ``columns`` settings)."""
    add = config.candidates.add_to
    return Options(
        sigs=tuple(config.candidates.sigs),
        releases=config.candidates.releases,
        ignore=tuple(config.candidates.ignore),
        add_page=add.page if add else "",
        add_table=add.table if add else "",
        add_count=add.count if add else 0,
        add_reasons=tuple(config.add_reasons()) if add else (),
        production_tables=tuple(config.production_tables),
        coverage_aliases={"group": tuple(config.coverage.columns.group), "keps": tuple(config.coverage.columns.keps)},
        web_url=config.links.enhancements,
        aliases=config.aliases(),
    )


def listed_keps(snapshot: Snapshot, groups: Sequence[Group]) -> dict[str, tuple[str, ...]]:
    """``{kep.yaml path: names of the design groups that list it}``, in page order. An item with a slug
    lists only the KEP it picks where upstream uses the number twice; an item without one lists every KEP
    with that number (:func:`bot.model.snapshot.resolve`)."""
    out: dict[str, list[str]] = {}
    for group in groups:
        for number, slug in group.keps:
            for kep in resolve(snapshot, number, slug):
                names = out.setdefault(kep.path, [])
                if group.name not in names:
                    names.append(group.name)
    return {path: tuple(names) for path, names in out.items()}


def track(
    snapshot: Snapshot,
    pages: Sequence[MatrixPage],
    changes: Sequence[Change],
    lines: Mapping[str, list[str]],
    options: Options,
    coverage_page: tuple[str, str] | None = None,
    only: Collection[int] | None = None,
) -> Tracking:
    """Run the tracking checks for one sync.

    ``pages``: the matrix pages as read; ``changes``: the diff's changes;
    ``lines``: ``{page: lines}`` as the diff left them (rows are appended
    there); ``coverage_page``: ``(path, text)`` of the coverage page, or ``None``;
    ``only`` (``--kep``): rows are added only for these KEP numbers (all candidates are still listed).
    """
    problems: list[Problem] = []
    rows = [r for p in pages for r in p.rows]
    # A row left as is (malformed) is a row all the same: its KEP is no candidate and gets no second row.
    named = [(r.number, r.slug) for r in rows] + [(r.number, r.slug) for p in pages for r in p.left]
    on_pages = [k for n, slug in named for k in resolve(snapshot, n, slug)]  # an ambiguous row covers all
    covered = {k.path for k in on_pages}
    sigs = options.sigs or tuple(sorted({k.sig for k in on_pages if k.sig}))
    shown: dict[str, set[str]] = {}
    for r in rows:
        for gate in cell_gates(r.value("feature_gates") or ""):
            shown.setdefault(gate, set()).add(str(r.number))
    coverage = None
    if coverage_page is not None:
        coverage = check_coverage(coverage_page[0], coverage_page[1], [n for n, _ in named], options.coverage_aliases)
        problems += coverage.problems
    groups = listed_keps(snapshot, coverage.groups) if coverage else {}
    candidates = find_candidates(
        snapshot, covered, sigs=sigs, shown_gates=shown, groups=groups, releases=options.releases, ignore=options.ignore
    )
    findings = [f for p in pages for f in not_production(p, snapshot, options.production_tables)]
    problems += [
        Problem("production_tables", "", f"no KEP table under a heading {t!r}; check the spelling")
        for t in missing_tables(pages, options.production_tables)
    ]
    added: list[AddedRow] = []
    new_lines: dict[str, list[str]] = {}
    target = next(
        (p for p in lines if options.add_page and posixpath.normpath(p) == posixpath.normpath(options.add_page)), None
    )
    if target is not None:
        addable = [c for c in candidates if only is None or c.kep.number in only]
        production = any(same_heading(options.add_table, t) for t in options.production_tables)
        new_lines[target], added, more = add_rows(
            target,
            lines[target],
            options.add_table,
            addable,
            options.add_count,
            options.aliases,
            options.web_url,
            options.add_reasons,
            production,
            shared={n for n, keps in snapshot.keps.items() if len(keps) > 1},
        )
        problems += more
    row_changes = [Change(a.ident, a.page, a.line, "row", "", a.cell, "added", True, a.kep_path) for a in added]
    return Tracking(candidates, coverage, findings, left_production(changes), added, new_lines, row_changes, problems)
