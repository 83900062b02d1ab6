"""The production list (the page's rule 3): provisional and withdrawn KEPs are not production capability.

Pure. Tables named in ``production_tables`` (by the heading above them) are
the production list; a row there whose KEP is ``provisional`` or
``withdrawn`` gets a report-only :class:`~bot.model.finding.Finding` of kind ``not-production``.
Independently of that setting, a status change to ``provisional`` or
``withdrawn`` is always called out (:func:`left_production`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.model.finding import Finding
from bot.model.snapshot import Snapshot, resolve
from bot.plan.diff import Change
from bot.wiki.matrix import MatrixPage, cell_value
from bot.wiki.sections import find_headings, heading_above, same_heading

#: Statuses that are not production capability (the page's rule 3).
NOT_PRODUCTION = ("provisional", "withdrawn")


#: :attr:`~bot.model.finding.Finding.kind` of a production-table row whose KEP is not production capability.
KIND = "not-production"


def not_production(page: MatrixPage, snapshot: Snapshot, tables: Sequence[str]) -> list[Finding]:
    """Rows of ``page`` in a production table (``tables``: headings) whose KEP is provisional or withdrawn.

    The status is kep.yaml's when the row resolves to one KEP, else the row's own status cell. Each finding
    has kind :data:`KIND`, the KEP cell as written as ``kep_id``, the row's ``page``, 1-based ``line`` and
    ``table`` (the heading above it), the ``status`` and the kep.yaml (``""`` unless the row resolves to one KEP).
    """
    if not tables:
        return []
    headings = find_headings("\n".join(page.lines))
    out: list[Finding] = []
    for row in page.rows:
        table = heading_above(headings, row.line)
        if not any(same_heading(table, t) for t in tables):
            continue
        keps = resolve(snapshot, row.number, row.slug)
        status = keps[0].status if len(keps) == 1 else cell_value(row.value("status") or "")
        if status.casefold() in NOT_PRODUCTION:
            out.append(
                Finding(
                    KIND,
                    row.cells["kep"].text,
                    keps[0].path if len(keps) == 1 else "",
                    "",
                    "",
                    page=page.path,
                    line=row.line + 1,
                    table=table,
                    status=status,
                )
            )
    return out


def left_production(changes: Iterable[Change]) -> list[Change]:
    """Status changes (applied or not) whose new value is provisional or withdrawn, in order."""
    return [
        c
        for c in changes
        if c.field == "status" and c.new.casefold() in NOT_PRODUCTION and c.old.casefold() != c.new.casefold()
    ]


def missing_tables(pages: Iterable[MatrixPage], tables: Sequence[str]) -> list[str]:
    """The configured production headings that head no KEP table on any page (a likely typo); ``[]`` without
    reading the pages when none is configured (the default)."""
    if not tables:
        return []
    seen: set[str] = set()
    for page in pages:
        headings = find_headings("\n".join(page.lines))
        seen.update(heading_above(headings, row.line) for row in page.rows)
    return [t for t in tables if not any(same_heading(t, s) for s in seen)]
