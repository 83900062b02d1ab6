"""New rows for the top candidates (opt-in ``candidates.add_to``), written as the page's rule 1 asks.

Pure: page lines and candidates in, new lines out. The rows go at the end of
the KEP table under the configured heading. Every owned cell is filled from
kep.yaml (status / stage, Alpha / Beta / GA, feature gates), the KEP cell is
written in the style of the table's first row (``4671-slug``, ``KEP-4671``,
``4671``, a link, emphasis), and so are the owned cells: the new row is that
row rewritten by :func:`bot.wiki.matrix.render_row` (its separators, words,
milestone style and column padding), with every other cell left empty for
the humans. A candidate with a value that cannot be trusted (an invalid
status or stage, a milestone like ``"v1.21, v1.37"``) gets no row: a value we
cannot trust is never written.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

from bot.diff import render_milestone
from bot.model.kep import DEPRECATION_STAGES, STAGES, STATUSES, Kep, Problem
from bot.tracking.candidates import Candidate
from bot.tracking.production import NOT_PRODUCTION
from bot.wiki.matrix import (OWNED_ROLES, MatrixRow, column_keys, column_roles, parse_kep_cell, parse_page,
                             render_gates, render_row)
from bot.wiki.sections import find_headings, heading_above, same_heading
from bot.wiki.tables import (Table, column_alignments, column_widths, escape_cell, fill_cell, find_tables,
                             split_row)

_LINK_RE = re.compile(r"^\[([^\]]+)\]\(([^)]*)\)$")
#: Column roles whose cells a new row fills from kep.yaml; every other cell is left empty.
_OWNED = (*OWNED_ROLES, "feature_gates")


class AddedRow(NamedTuple):
    """A row kep-sync appended: ``page``, 1-based ``line`` in the new page, KEP ``ident``, ``kep_path``,
    the KEP ``cell`` as written and the row's ``text``."""

    page: str
    line: int
    ident: str
    kep_path: str
    cell: str
    text: str


def add_rows(path: str, lines: list[str], heading: str, candidates: Sequence[Candidate], count: int,
             aliases: Mapping[str, Sequence[str]], web_url: str, reasons: Collection[str] = ("group",),
             production: bool = False) -> tuple[list[str], list[AddedRow], list[Problem]]:
    """Append rows for the first ``count`` trustworthy ``candidates`` that have a reason of a kind in
    ``reasons`` (default: listed by a design group) to the KEP table under ``heading``.

    ``lines``: the page split on ``\\n`` (as the diff left it); ``web_url``:
    the enhancements repository, for a linked KEP cell whose link cannot be
    adapted; ``production``: the table is a production table
    (``production_tables``), so a ``provisional`` or ``withdrawn`` KEP gets
    no row there (the page's rule 3). Returns ``(new lines, rows added,
    problems)``; no table under the heading is one problem and no change. A
    candidate gets no row, and a problem says why, when a value cannot be
    trusted, when its directory name is not a plain KEP name (``4671-slug``:
    a ``|`` would break the table), when it is not production capability in
    a production table, or when the row written would not read back as its
    KEP's row (:func:`bot.wiki.matrix.parse_page`), so every row added is one
    the next run recognises and never adds again. New rows end as the table's
    lines do (``\\r\\n`` or ``\\n``), also after a last line with no newline.
    """
    text = "\n".join(lines)
    table = table_under(text, heading, aliases)
    if table is None:
        return lines, [], [Problem(path, "candidates.add_to.table",
                                   f"no KEP table under the heading {heading!r}; no rows added")]
    rows = [r for r in parse_page(path, text, aliases).rows if r.line in table.body]
    shape = _Shape.of(lines, table, aliases, rows[0] if rows else None)
    problems: list[Problem] = []
    new_rows: list[tuple[Candidate, str, str]] = []
    for cand in candidates:
        if len(new_rows) >= count:
            break
        if not cand.kinds & set(reasons):
            continue
        values, why = _values(cand.kep)
        if not why and production and cand.kep.status.casefold() in NOT_PRODUCTION:
            why = (f"kep.yaml status {cand.kep.status!r} is not production capability and {heading!r} is in "
                   "production_tables (rule 3)")
        if not why and parse_kep_cell(_dir_name(cand.kep)) != (cand.kep.number, cand.kep.slug):
            why = f"directory name {_dir_name(cand.kep)!r} is not a plain KEP name (digits, '-', letters, '_', '.')"
        cell = _kep_cell(cand.kep, shape.sample, web_url)
        row = shape.row(values, escape_cell(cell)) if not why else ""
        if not why and not _reads_back(row, lines[table.header], lines[table.delimiter], cand.kep, aliases):
            why = f"the row would not read back as KEP {cand.kep.number}'s row: {row.rstrip(chr(13))!r}"
        if why:
            problems.append(Problem(path, "candidates.add_to", f"KEP {cand.ident}: {why}; no row added"))
            continue
        new_rows.append((cand, cell, row))
    at = (table.body[-1] if table.body else table.delimiter) + 1
    eol = "\r" if lines[table.header].endswith("\r") else ""
    written = [row.rstrip("\r") + eol for _, _, row in new_rows]
    before = lines[:at]
    if written and at == len(lines):  # the table ends the page, with no final newline: keep it so
        before[-1] = before[-1].rstrip("\r") + eol
        written[-1] = written[-1].rstrip("\r")
    out = before + written + lines[at:]
    added = [AddedRow(path, at + i + 1, c.ident, c.kep.path, cell, row)
             for i, ((c, cell, _), row) in enumerate(zip(new_rows, written))]
    return out, added, problems


def _dir_name(kep: Kep) -> str:
    """The KEP's directory name (``4671-gang-scheduling``), from its kep.yaml path."""
    parts = kep.path.split("/")
    return parts[-2] if len(parts) >= 2 else f"{kep.number}-{kep.slug}"


def _reads_back(row: str, header: str, delimiter: str, kep: Kep, aliases: Mapping[str, Sequence[str]]) -> bool:
    """True when ``row`` under the table's ``header`` and ``delimiter`` lines parses as one usable row of ``kep``
    (its number, and its slug when the KEP cell shows one), with no problem."""
    page = parse_page("", "\n".join([header.rstrip("\r"), delimiter.rstrip("\r"), row.rstrip("\r")]), aliases)
    return (not page.problems and len(page.rows) == 1 and page.rows[0].number == kep.number
            and page.rows[0].slug in ("", kep.slug))


def table_under(text: str, heading: str, aliases: Mapping[str, Sequence[str]]) -> Table | None:
    """The first KEP table (a ``kep`` column by ``aliases``) whose nearest heading above is ``heading``
    (:func:`bot.wiki.sections.same_heading`), or ``None``."""
    lines = text.split("\n")
    headings = find_headings(text)
    for table in find_tables(text):
        roles = column_roles([c.text for c in split_row(lines[table.header])], aliases)
        if "kep" in roles and same_heading(heading_above(headings, table.header), heading):
            return table
    return None


def _values(kep: Kep) -> tuple[dict[str, str], str]:
    """``{field: value as kep.yaml says it}`` for every owned field, or ``({}, why)`` when one cannot be trusted
    (the same rules as the diff: :func:`bot.diff.render_milestone`)."""
    if kep.status not in STATUSES:
        return {}, f"kep.yaml status {kep.status!r} is not a valid status"
    if kep.stage not in STAGES + DEPRECATION_STAGES:
        return {}, f"kep.yaml stage {kep.stage!r} is not a valid stage"
    values = {"status": kep.status, "stage": kep.stage, "feature_gates": render_gates(kep.gates())}
    for key in ("alpha", "beta", "stable"):
        value = render_milestone(kep.milestone(key))
        if value is None:
            return {}, f"kep.yaml milestone.{key} {kep.milestone(key)!r} is not a milestone"
        values[key] = value
    return values, ""


class _Shape(NamedTuple):
    """How a new row of one table is written: from its first row (``sample``, with its ``line``) when it
    has one, so separators, words, milestone style and padding follow the page; else plain cells."""

    sample: MatrixRow | None
    line: str
    keys: dict[str, int]
    widths: list
    aligns: list[str]
    header: str

    @classmethod
    def of(cls, lines: list[str], table: Table, aliases: Mapping[str, Sequence[str]],
           sample: MatrixRow | None) -> "_Shape":
        header = [c.text for c in split_row(lines[table.header])]
        widths = column_widths([lines[i] for i in (table.header, table.delimiter, *table.body)])
        return cls(sample, lines[sample.line] if sample else "", column_keys(header, aliases), widths,
                   column_alignments(lines[table.delimiter]), lines[table.header])

    def row(self, values: dict[str, str], kep_cell: str) -> str:
        """The new row's line: owned cells from ``values``, the KEP cell, every other cell empty."""
        if self.sample is None:
            return self._plain(values, kep_cell)
        line = render_row(self.line, self.sample, values)
        cells = split_row(line)
        owned = {i for key, i in self.keys.items() if key.split("#")[0] in _OWNED}
        for i in reversed(range(len(cells))):
            if i in owned:
                continue
            text = kep_cell if i == self.keys["kep"] else ""
            width = self.widths[i] if i < len(self.widths) else None
            line = fill_cell(line, cells[i], text, width, self.aligns[i] if i < len(self.aligns) else "left")
        return line

    def _plain(self, values: dict[str, str], kep_cell: str) -> str:
        v = {k: escape_cell(x) or "-" for k, x in values.items()}
        composite = "stage" not in self.keys
        by_role = {"kep": kep_cell, "status": f"{v['status']} / {v['stage']}" if composite else v["status"],
                   "stage": v["stage"], "milestones": f"{v['alpha']} / {v['beta']} / {v['stable']}",
                   "alpha": v["alpha"], "beta": v["beta"], "stable": v["stable"], "feature_gates": v["feature_gates"]}
        index_key = {i: key.split("#")[0] for key, i in self.keys.items()}
        count = len(split_row(self.header))
        return _line([by_role.get(index_key.get(i, ""), "") for i in range(count)], self.header)


def _kep_cell(kep: Kep, sample: MatrixRow | None, web_url: str) -> str:
    """The KEP cell in the style of ``sample``'s (``4671-slug`` when the table has no row yet)."""
    plain = f"{kep.number}-{kep.slug}"
    if sample is None:
        return plain
    written = sample.cells["kep"].text
    core = written.strip("*_`")
    wrap = written[: len(written) - len(written.lstrip("*_`"))]
    link = _LINK_RE.match(core)
    inner = link.group(1) if link else core
    key = parse_kep_cell(inner)
    if key and not key[1]:
        plain = f"KEP-{kep.number}" if inner.upper().startswith("KEP") else str(kep.number)
    if link:
        plain = f"[{plain}]({_link(link.group(2), sample, kep, web_url)})"
    return wrap + plain + wrap[::-1]


def _link(url: str, sample: MatrixRow, kep: Kep, web_url: str) -> str:
    """``url`` (the sample row's link) adapted to ``kep``: its KEP directory or trailing number replaced."""
    directory = kep.path.rsplit("/", 1)[0]
    found = re.search(rf"keps/[^)\s]*?/{sample.number}-[^/)\s]+", url)
    if found:
        return url[:found.start()] + directory + url[found.end():]
    if re.search(rf"(?<!\d){sample.number}/?$", url):
        return re.sub(rf"{sample.number}(/?)$", rf"{kep.number}\1", url)
    return f"{web_url.rstrip('/')}/tree/master/{directory}"


def _line(cells: list[str], header_line: str) -> str:
    """A table row in the header's shape: leading / trailing pipes as the header has them, ``\\r`` kept."""
    cr = "\r" if header_line.endswith("\r") else ""
    bare = header_line.rstrip("\r").strip()
    lead, trail = bare.startswith("|"), bare.endswith("|")
    body = " | ".join(cells)
    return ("| " if lead else "") + body + (" |" if trail else "") + cr
