"""The rows of the changelog's tables: one Changes row per page row (its fields, evidence and upstream commit),
the rows of the review sections and of Problems, the graduations list, and where their links land
(:class:`Links`). Pure."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple
from urllib.parse import quote

from bot.model.finding import Finding
from bot.model.history.log import utc_day
from bot.model.history.provenance import Upstream
from bot.model.kep import Kep, Problem
from bot.model.snapshot import Snapshot
from bot.plan.changelog.markdown import code as _code
from bot.plan.changelog.markdown import kep_link, kep_yaml_url, line_start, note_link, short, table_cell
from bot.plan.diff import Change
from bot.wiki.vocabulary import stage_word

DEFAULT_WEB_URL = "https://github.com/kubernetes/enhancements"


# ---------------------------------------------------------------- the approver's layout
class Links(NamedTuple):
    """Where links land: ``web_url`` of the enhancements repository, its ``revision`` (commit SHA) and
    ``page_url`` (the wiki's web address of the pages at the base revision, ending in ``/``; ``""``
    when the wiki is not on GitHub) and ``one_page``: the page every row of the changelog is on, ``""`` when
    they are on several (:func:`one_page`)."""

    web_url: str
    revision: str
    page_url: str = ""
    one_page: str = ""

    def page(self, page: str, line: int) -> str:
        """``[page:line](PAGE_URL/page#Lline)``, or ``page:line`` as text without a ``page_url``."""
        spot = f"{table_cell(page)}:{line}"
        return f"[{spot}]({self.page_url}{quote(page)}#L{line})" if self.page_url else spot

    def cell(self, page: str, line: int) -> str:
        """A table's Page cell: ``[L32](PAGE_URL/page#L32)`` (``L32`` as text without a ``page_url``) when the
        rows are on one page (the column header names it, :meth:`header`), else :meth:`page`."""
        if not self.one_page:
            return self.page(page, line)
        return f"[L{line}]({self.page_url}{quote(page)}#L{line})" if self.page_url else f"L{line}"

    def header(self) -> str:
        """A table's Page column header: the page's name when the rows are on one page, else ``Page``."""
        return table_cell(self.one_page) if self.one_page else "Page"

    def kep_yaml(self, kep_path: str, line: int = 0) -> str:
        """The kep.yaml at the revision, ending in ``#L<line>`` when ``line``; ``""`` without revision or path."""
        url = kep_yaml_url(self.web_url, self.revision, kep_path)
        return f"{url}#L{line}" if url and line else url


def one_page(changes: Sequence[Change]) -> str:
    """The page every change is on, ``""`` when they are on several or there are none."""
    pages = {c.page for c in changes}
    return pages.pop() if len(pages) == 1 else ""


#: Longest KEP title shown in the Changes table, characters (longer ones end with "…").
MAX_TITLE_CHARS = 60


#: Longest upstream pull request subject shown in a link, characters.
MAX_SUBJECT_CHARS = 50


def source_name(source: str, *, code: bool = True) -> str:
    """How the changelog names ``Snapshot.source``: ``OWNER/REPO`` for ``github:OWNER/REPO@REF``, else the
    path or URL as given (a local clone, tarball or directory), in a code span when ``code``."""
    m = re.fullmatch(r"github:([^/@]+/[^/@]+)(?:@.*)?", source, re.DOTALL)
    if m:
        return m.group(1)
    text = source.replace("\n", " ")
    return _code(text) if code else text


def _flags(c: Change) -> str:
    """The change's report-only flags for a table cell: ``<br>⚠ flag`` each, ``""`` when none."""
    return "".join(f"<br>⚠ {table_cell(f)}" for f in c.flags)


#: How the Change column shows a cell written blank (a page whose "none" is an empty cell).
BLANK = "(blank)"


def written_cell(c: Change) -> str:
    """The new value of ``c`` as the Change column shows it: what the page gets (:attr:`Change.written`, the
    report's ``new``: ``GA``, ``-``, ``Beta``), :data:`BLANK` for a cell written empty; ``c.new`` for a change not
    written."""
    if c.written is None:
        return table_cell(c.new)
    return table_cell(c.written) if c.written.strip() else BLANK


def upstream_cell(upstream: Upstream | None, web_url: str = DEFAULT_WEB_URL, *, subject: bool = True) -> str:
    """The upstream pull request of a change: ``[#6182 SUBJECT](WEB/pull/6182)`` (the subject without a trailing
    ``(#N)``, cut at :data:`MAX_SUBJECT_CHARS`; ``[#6182](WEB/pull/6182)`` when not ``subject``, as the Upstream
    column shows it; or the commit, ``[0123456789ab](WEB/commit/SHA)``, when the subject names no pull
    request) and the date; ``-`` when unknown. ``upstream`` is a
    :class:`bot.model.history.provenance.Upstream`; an inexact one (the last commit touching the kep.yaml) says so."""
    if upstream is None:
        return "-"
    base = web_url.rstrip("/")
    said = re.sub(r"\s*\(#\d+\)\s*$|^Merge pull request #\d+ from \S+$", "", upstream.subject or "")
    subject_text = short(said, MAX_SUBJECT_CHARS) if subject else ""
    text = f"#{upstream.pr} {table_cell(subject_text)}" if subject_text.strip() else f"#{upstream.pr}"
    link = (
        f"[{text}]({base}/pull/{upstream.pr})"
        if upstream.pr
        else f"[{table_cell(upstream.commit[:12])}]({base}/commit/{table_cell(upstream.commit)})"
    )
    return f"{link} {table_cell(utc_day(upstream.date))}" + ("" if upstream.exact else " (last kep.yaml commit)")


def gate_row(d: Finding) -> str:
    return f"| {kep_link(d.kep_id)} | {d.release or '-'} | {d.kind}: {table_cell(d.message)} |"


def review_row(d: Finding) -> str:
    kep = kep_link(d.kep_id) if d.kep_id else "-"
    note = f"{note_link(d.pr, d.url)}: {table_cell(d.excerpt)}" if d.pr else "-"
    return f"| {kep} | {d.release or '-'} | {d.kind}: {table_cell(d.message)} | {note} |"


def finding_row(c: Change, web_url: str = DEFAULT_WEB_URL) -> str:
    if c.kind == "pending":
        what = (
            f"{c.field}: page shows {table_cell(c.old)}, kep.yaml says {table_cell(c.new)}: pending {c.pending} "
            f"(written once {c.pending} has shipped; `promote_when: released`)"
        )
    elif c.kind == "missing-upstream":
        what = f"no kep.yaml upstream has this number (row shows status {table_cell(c.old)}); row kept"
    elif c.kind == "renamed":  # the pull request that renamed it (the rename's commit, from the history)
        by = f" in {upstream_cell(c.upstream, web_url)}" if c.upstream is not None else ""
        why = "; ".join(table_cell(f) for f in c.flags) or "`renames: apply` rewrites the KEP cell"
        what = f"upstream renamed {table_cell(c.old)} to **{table_cell(c.new)}**{by}; " + (
            "KEP cell kept, its status, stage and milestone cells synced (`renames: owned-cells`)"
            if c.synced
            else f"row left as is ({why})"
        )
    else:
        what = f"{c.field}: page shows {table_cell(c.old)}, kep.yaml says {table_cell(c.new)}{_flags(c)}"
    return f"| {kep_link(c.kep_id)} | {table_cell(c.page)}:{c.line} | {what} |"


def grouped_graduations(changes: Sequence[Change]) -> list[str]:
    """One line per stage move, its KEPs listed: ``- alpha → **beta**: [4671](...), [5710](...)``.
    ``changes``: promoted or demoted stage changes, in changelog order."""
    moves: dict[tuple[str, str], list[str]] = {}
    for c in changes:
        keps = moves.setdefault((stage_word(c.old), stage_word(c.new)), [])
        if c.kep_id not in keps:
            keps.append(c.kep_id)
    return [
        f"- {line_start(old)} → **{table_cell(new)}**: {', '.join(kep_link(k) for k in keps)}"
        for (old, new), keps in moves.items()
    ]


def by_row(changes: Sequence[Change]) -> list[list[Change]]:
    """``changes`` grouped by page row (page, line), in order of first appearance."""
    groups: dict[tuple[str, int], list[Change]] = {}
    for c in changes:
        groups.setdefault((c.page, c.line), []).append(c)
    return list(groups.values())


def notes_can_exist(snapshot: Snapshot) -> Callable[[str], bool]:
    """``release -> bool``: True for a milestone no newer than the release in progress (its release notes
    can exist), False for a later one (nothing can be said of a release that has not shipped)."""
    from bot.model.consistency import release_in_progress
    from bot.model.kep import milestone_key

    in_progress = release_in_progress(snapshot.all_keps())

    def shipped(value: str) -> bool:
        key = milestone_key(value)
        return key is None or in_progress is None or key <= in_progress

    return shipped


def row_line(
    group: list[Change],
    keps: Mapping[str, Kep],
    links: Links,
    origin: bool,
    held: Mapping[tuple[str, int], Sequence[str]] | None = None,
) -> str:
    """One Changes table row for the changes of one page row; ``held``: :func:`held_cells`."""
    fields = "<br>".join(f"{c.field}: {table_cell(c.old)} → **{written_cell(c)}**{_flags(c)}" for c in group)
    cells = lead_cells(group, keps.get(group[0].kep_path), links, fields, MAX_TITLE_CHARS, held)
    if origin:
        ups = list({(u.commit if u is not None else ""): u for u in (c.upstream for c in group)}.values())
        cells.append("<br>".join(upstream_cell(u, links.web_url, subject=False) for u in ups))
    return "| " + " | ".join(cells) + " |"


def held_cells(problems: Sequence[Problem]) -> dict[tuple[str, int], list[str]]:
    """``{(page, line): [why]}``: the problems of page rows (key ``line N``), each without the kep.yaml path it
    ends with, so a row the run half-updates says in its own line why the rest was kept (KEP 281: stage
    written, ``kep.yaml status 'removed' is not a valid status; status cell kept``)."""
    out: dict[tuple[str, int], list[str]] = {}
    for p in problems:
        m = re.fullmatch(r"line (\d+)", p.key)
        if m:
            out.setdefault((p.path, int(m.group(1))), []).append(re.sub(r" \([^()]*kep\.yaml\)$", "", p.message))
    return out


def lead_cells(
    group: Sequence[Change],
    kep: Kep | None,
    links: Links,
    fields: str,
    title_chars: int,
    held: Mapping[tuple[str, int], Sequence[str]] | None = None,
) -> list[str]:
    """The first cells of a Changes row: the KEP with its title (cut at ``title_chars``), the page line, the
    ``fields`` cell as given, then ``⚠`` and why for each cell of the row kept (``held``, :func:`held_cells`),
    and the kep.yaml cell (:func:`kep_yaml_cell`)."""
    first = group[0]
    title = short(kep.title, title_chars) if kep is not None else ""
    kept = "".join(f"<br>⚠ {table_cell(why)}" for why in (held or {}).get((first.page, first.line), ()))
    return [
        f"{kep_link(first.kep_id)} {table_cell(title)}" if title else kep_link(first.kep_id),
        links.cell(first.page, first.line),
        fields + kept,
        kep_yaml_cell(group, kep, links),
    ]


def kep_yaml_cell(group: Sequence[Change], kep: Kep | None, links: Links) -> str:
    """The kep.yaml cell of one page row: the file at the revision and the line of each changed key
    (``[kep.yaml](URL) [L34](URL#L34)``); the path as text without a revision."""
    where = dict(kep.key_lines) if kep is not None else {}
    lines = " ".join(
        f"[L{where[c.field]}]({links.kep_yaml(c.kep_path, where[c.field])})"
        for c in group
        if c.field in where and links.kep_yaml(c.kep_path)
    )
    url = links.kep_yaml(group[0].kep_path)
    return (f"[kep.yaml]({url})" + (f" {lines}" if lines else "")) if url else table_cell(group[0].kep_path)


def history_text(c: Change, web_url: str) -> str:
    """``; kep.yaml said v1.36 until [#6125 subject](...) 2026-06-05`` from the change's upstream, ``""``
    when unknown."""
    up = c.upstream
    if up is None:
        return ""
    before = getattr(up, "before", None)
    said = f"kep.yaml said {table_cell(before) if before else 'nothing'} until " if before is not None else "set in "
    return f"; {said}{upstream_cell(up, web_url)}"


def ignored_row(c: Change, links: Links) -> str:
    rule = "row marker" if c.ignored == "page" else "config `ignore`"
    return (
        f"| {kep_link(c.kep_id)} | {links.cell(c.page, c.line)} | {c.field} | {table_cell(c.old)} → {table_cell(c.new)} "
        f"| {rule} |"
    )
