"""New rows for the top candidates (opt-in ``candidates.add_to``), written as the page's rule 1 asks.

Pure: page lines and candidates in, new lines out. The rows go at the end of
the KEP table under the configured heading, in that table's structure (its
indentation and container marks: list item, blockquote; outer pipes; column
widths and alignment), and each is checked by re-reading the whole page. Every
owned cell is filled from kep.yaml (status / stage, Alpha / Beta / GA, feature
gates); the KEP cell is written in the style of the table's first row
(``4671-slug``, ``KEP-4671``, ``4671``, a link; emphasis only when every KEP
cell has it; always ``4671-slug`` for a number upstream uses twice), and so
are the owned cells: the new row is that row with its owned parts blanked and
rewritten by :func:`bot.wiki.matrix.render_row` (its separators, words,
milestone style and column padding; none of its footnotes or emphasis), with
every other cell left empty for the humans. A candidate with a value the
diff would not write (an invalid status or stage, a milestone like
``"v1.21, v1.37"`` or ``TBD``, a key given twice, a template copy) gets no
row: a value we cannot trust is never written.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

from bot.model.kep import DEPRECATION_STAGES, STAGES, STATUSES, TRUST_FIELDS, Kep, Problem, normalize_milestone
from bot.model.snapshot import slug_matches
from bot.plan.diff import render_milestone
from bot.plan.tracking.candidates import Candidate
from bot.plan.tracking.production import NOT_PRODUCTION
from bot.wiki.kepnames import parse_kep_cell
from bot.wiki.matrix import (
    FIELD_CELLS,
    OWNED_ROLES,
    MatrixPage,
    MatrixRow,
    column_keys,
    column_roles,
    locate_all,
    parse_page,
    render_gates,
    render_row,
)
from bot.wiki.sections import find_headings, heading_above, same_heading
from bot.wiki.tables import (
    Table,
    column_alignments,
    column_widths,
    escape_cell,
    fill_cell,
    find_tables,
    header_row,
    keep_edge_cells,
    listed_header,
    split_row,
)
from bot.wiki.vocabulary import Spelling

_LINK_RE = re.compile(r"^\[([^\]]+)\]\(([^)]*)\)$")
#: What stands before a table line's first cell: indentation (a list item) and blockquote marks.
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


def add_rows(
    path: str,
    lines: list[str],
    heading: str,
    candidates: Sequence[Candidate],
    count: int,
    aliases: Mapping[str, Sequence[str]],
    web_url: str,
    reasons: Collection[str] = ("group",),
    production: bool = False,
    shared: Collection[int] = (),
) -> tuple[list[str], list[AddedRow], list[Problem]]:
    """Append rows for the first ``count`` trustworthy ``candidates`` that have a reason of a kind in
    ``reasons`` (default: listed by a design group) to the KEP table under ``heading``.

    ``lines``: the page split on ``\\n`` (as the diff left it); ``web_url``:
    the enhancements repository, for a linked KEP cell whose link cannot be
    adapted; ``production``: the table is a production table
    (``production_tables``), so a ``provisional`` or ``withdrawn`` KEP gets
    no row there (the page's rule 3); ``shared``: KEP numbers upstream uses
    twice (their KEP cell is written ``NNNN-slug`` whatever the table's style,
    so it picks the KEP). Returns ``(new lines, rows added, problems)``; no
    table under the heading is one problem and no change. A candidate gets no
    row, and a problem says why, when a value the diff would not write is
    needed (:func:`_values`), when its directory name is not a plain KEP name
    (``4671-slug``: a ``|`` would break the table), when it is not production
    capability in a production table, or when the page with the row inserted
    does not read back (:func:`bot.wiki.matrix.parse_page` on the whole page)
    with that row in that table as this KEP's row and every other row as
    before, so every row added is one the next run recognises and never adds
    again. A row is written in the table's own structure: the header's
    indentation and container marks (list item, blockquote), its outer pipes,
    its column widths and alignment. New rows end as the table's lines do
    (``\\r\\n`` or ``\\n``), also after a last line with no newline.
    """
    text = "\n".join(lines)
    table = table_under(text, heading, aliases)
    if table is None:
        return (
            lines,
            [],
            [Problem(path, "candidates.add_to.table", f"no KEP table under the heading {heading!r}; no rows added")],
        )
    page = parse_page(path, text, aliases)
    shape = _Shape.of(lines, table, aliases, [r for r in page.rows if r.line in table.body])
    at = (table.body[-1] if table.body else table.delimiter) + 1
    eol = "\r" if lines[table.header].endswith("\r") else ""
    problems: list[Problem] = []
    added: list[AddedRow] = []
    for cand in candidates:
        if len(added) >= count:
            break
        if not cand.kinds & set(reasons):
            continue
        kep, index = cand.kep, at + len(added)
        values, why = _values(kep, shape.fields())
        if not why and production and kep.status.casefold() in NOT_PRODUCTION:
            why = (
                f"kep.yaml status {kep.status!r} is not production capability and {heading!r} is in "
                "production_tables (rule 3)"
            )
        if not why and parse_kep_cell(_dir_name(kep)) != (kep.number, kep.slug):
            why = f"directory name {_dir_name(kep)!r} is not a plain KEP name (digits, '-', letters, '_', '.')"
        if not why:
            cell = _kep_cell(kep, shape, web_url, kep.number in shared)
            new = _insert(lines, index, shape.row(values, escape_cell(cell)), eol)
            after = parse_page(path, "\n".join(new), aliases)
            if not _reads_back(page, after, table.header, index, kep, kep.number in shared):
                why = f"the row would not read back as KEP {kep.number}'s row: {new[index].rstrip(chr(13))!r}"
        if why:
            problems.append(Problem(path, "candidates.add_to", f"KEP {cand.ident}: {why}; no row added"))
            continue
        added.append(AddedRow(path, index + 1, cand.ident, kep.path, cell, new[index]))
        lines, page = new, after
    return lines, added, problems


def _insert(lines: list[str], index: int, row: str, eol: str) -> list[str]:
    """``lines`` with ``row`` (ended with ``eol``) inserted at ``index``; at the end of a page with no final
    newline the row becomes the last line (no newline) and the line before it gets ``eol``."""
    row = row.rstrip("\r")
    if index == len(lines):
        return lines[:-1] + [lines[-1].rstrip("\r") + eol, row]
    return lines[:index] + [row + eol] + lines[index:]


def _dir_name(kep: Kep) -> str:
    """The KEP's directory name (``4671-gang-scheduling``), from its kep.yaml path."""
    parts = kep.path.split("/")
    return parts[-2] if len(parts) >= 2 else f"{kep.number}-{kep.slug}"


def _reads_back(before: MatrixPage, after: MatrixPage, header: int, index: int, kep: Kep, shared: bool) -> bool:
    """True when ``after`` (the page with a row inserted at 0-based ``index``) reads that line as a row of the
    table whose header is line ``header``, naming ``kep`` (its number; its slug when the cell shows one, and
    a slug is required when upstream uses the number twice), and reads every other row, problem and row
    left as is as ``before`` does (one usable row more, nothing else)."""
    row = next((r for r in after.rows if r.line == index), None)
    if row is None or (len(after.rows), len(after.left), len(after.problems)) != (
        len(before.rows) + 1,
        len(before.left),
        len(before.problems),
    ):
        return False
    if not any(t.header == header and index in t.body for t in find_tables("\n".join(after.lines))):
        return False
    return row.number == kep.number and (slug_matches(kep.slug, row.slug) if row.slug else not shared)


def table_under(text: str, heading: str, aliases: Mapping[str, Sequence[str]]) -> Table | None:
    """The first KEP table (a ``kep`` column by ``aliases``) whose nearest heading above is ``heading``
    (:func:`bot.wiki.sections.same_heading`), or ``None``."""
    lines = text.split("\n")
    headings = find_headings(text)
    for table in find_tables(text):
        roles = column_roles([c.text for c in header_row(lines, table)], aliases)
        if "kep" in roles and same_heading(heading_above(headings, table.header), heading):
            return table
    return None


def _values(kep: Kep, fields: Collection[str] = TRUST_FIELDS) -> tuple[dict[str, str], str]:
    """``{field: value as kep.yaml says it}`` for every owned field, or ``({}, why)`` when one the table shows
    (``fields``) cannot be written: the rules of the diff (:func:`bot.plan.diff.render_milestone`), a field the
    kep.yaml withholds (:meth:`bot.model.kep.Kep.withholds`: a key given twice, a template copy) and a
    milestone placeholder (``TBD``: the diff neither writes nor clears it)."""
    withheld = [f for f in TRUST_FIELDS if kep.withholds(f)]
    if len(withheld) == len(TRUST_FIELDS):
        return {}, f"{kep.distrust(withheld[0])}, so none of its fields is written"
    shown = [f for f in withheld if f in fields]
    if shown:
        return {}, f"{kep.distrust(shown[0])}, so {shown[0]} is not written"
    if kep.status not in STATUSES:
        return {}, f"kep.yaml status {kep.status!r} is not a valid status"
    if kep.stage not in STAGES + DEPRECATION_STAGES:
        return {}, f"kep.yaml stage {kep.stage!r} is not a valid stage"
    values = {"status": kep.status, "stage": kep.stage, "feature_gates": render_gates(kep.gates())}
    for key in ("alpha", "beta", "stable"):
        value = render_milestone(kep.milestone(key))
        if value is None:
            return {}, f"kep.yaml milestone.{key} {kep.milestone(key)!r} is not a milestone"
        if value and key in fields and normalize_milestone(value) is None:
            return {}, f"kep.yaml milestone.{key} {kep.milestone(key)!r} is a placeholder, not a milestone"
        values[key] = value
    return values, ""


class _Shape(NamedTuple):
    """How a new row of one table is written. With a first row (``sample``), from that row with every
    owned part blanked (``line``; :func:`_blank`), so separators, words, milestone style and padding follow
    the page but no human mark of that row (a footnote, emphasis) is copied; else plain cells in the
    header's shape. ``wrap``: emphasis every KEP cell of the table is wrapped in (``""`` unless all are)."""

    sample: MatrixRow | None
    line: str
    keys: dict[str, int]
    widths: list[int | None]
    aligns: list[str]
    header: str
    wrap: str = ""

    @classmethod
    def of(
        cls, lines: list[str], table: Table, aliases: Mapping[str, Sequence[str]], rows: Sequence[MatrixRow]
    ) -> _Shape:
        header = [c.text for c in header_row(lines, table)]
        widths = column_widths([lines[i] for i in (table.header, table.delimiter, *table.body)])
        wraps = {_wrap(r.cells["kep"].text) for r in rows}
        keys = column_keys(header, aliases)
        full = [r for r in rows if not r.beyond]  # a row with fewer cells than the header is no model
        line, sample = _blank(lines[full[0].line], full[0], keys) if full else ("", None)
        return cls(
            sample,
            line,
            keys,
            widths,
            column_alignments(lines[table.delimiter]),
            lines[table.delimiter] if listed_header(lines, table) else lines[table.header],
            wraps.pop() if len(wraps) == 1 else "",
        )

    def fields(self) -> set[str]:
        """The fields (:data:`bot.model.kep.TRUST_FIELDS`) some column of this table shows."""
        roles = {key.split("#")[0] for key in self.keys}
        return {f for f, where in FIELD_CELLS.items() if any(role in roles for role, _ in where)}

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
            line = fill_cell(line, cells[i], text, self._width(i), self._align(i))
        return keep_edge_cells(line, len(cells), cells[0].lo)  # an emptied first or last cell keeps its place

    def _width(self, i: int) -> int | None:
        return self.widths[i] if i < len(self.widths) else None

    def _align(self, i: int) -> str:
        return self.aligns[i] if i < len(self.aligns) else "left"

    def _plain(self, values: dict[str, str], kep_cell: str) -> str:
        v = {k: escape_cell(x) or "-" for k, x in values.items()}
        composite = "stage" not in self.keys
        by_role = {
            "kep": kep_cell,
            "status": f"{v['status']} / {v['stage']}" if composite else v["status"],
            "stage": v["stage"],
            "milestones": f"{v['alpha']} / {v['beta']} / {v['stable']}",
            "alpha": v["alpha"],
            "beta": v["beta"],
            "stable": v["stable"],
            "feature_gates": v["feature_gates"],
        }
        index_key = {i: key.split("#")[0] for key, i in self.keys.items()}
        count = len(split_row(self.header))
        line = _line([by_role.get(index_key.get(i, ""), "") for i in range(count)], self.header)
        for i, cell in reversed(list(enumerate(split_row(line)))):
            if self._width(i) is not None:
                line = fill_cell(line, cell, cell.text, self._width(i), self._align(i))
        return line


def _blank(line: str, sample: MatrixRow, keys: Mapping[str, int]) -> tuple[str, MatrixRow]:
    """``(line, row)``: ``sample``'s line and row with every part of every owned cell (and the feature gate
    cell) replaced by the column's word for none (``-`` unless the column writes another), separators and
    padding kept; ``keys``: column key -> index (:func:`bot.wiki.matrix.column_keys`)."""
    pieces_of: dict[str, list[str]] = {}
    for field in FIELD_CELLS:
        for key, index, pieces in locate_all(sample, field):
            pieces_of.setdefault(key, pieces)[index] = sample.vocab.get(key, Spelling()).blank or "-"
    for key in sorted(pieces_of, key=lambda k: sample.cells[k].start, reverse=True):
        width, align = sample.layout.get(key, (None, "left"))
        line = fill_cell(line, sample.cells[key], "".join(pieces_of[key]), width, align)
    cells = split_row(line)
    return line, sample._replace(cells={k: cells[keys[k]] for k in sample.cells})


def _wrap(written: str) -> str:
    """The emphasis or code marks a KEP cell is wrapped in (``**`` for ``**4671-x**``), ``""`` for none."""
    return written[: len(written) - len(written.lstrip("*_`"))]


def _kep_cell(kep: Kep, shape: _Shape, web_url: str, shared: bool = False) -> str:
    """The KEP cell in the style of the table's first row (``4671-slug`` when the table has no row yet):
    ``KEP-4671``, ``#4671``, ``4671`` (any form naming the number once, the number swapped) or ``4671-slug``,
    linked when that row's cell is a link, wrapped in emphasis only
    when every KEP cell of the table is (:attr:`_Shape.wrap`). ``shared``: upstream uses the number twice,
    so the cell is ``4671-slug`` whatever the style (only the slug picks the KEP)."""
    plain = f"{kep.number}-{kep.slug}"
    if shape.sample is None:
        return plain
    sample = shape.sample
    core = sample.cells["kep"].text.strip("*_`")
    link = _LINK_RE.match(core)
    inner = link.group(1) if link else core
    key = parse_kep_cell(inner)
    if key and not key[1] and not shared:
        swapped, count = re.subn(rf"(?<![0-9])0*{key[0]}(?![0-9])", str(kep.number), inner)
        plain = swapped if count == 1 else f"KEP-{kep.number}" if inner.upper().startswith("KEP") else str(kep.number)
    if link:
        plain = f"[{plain}]({_link(link.group(2), sample, kep, web_url)})"
    return shape.wrap + plain + shape.wrap[::-1]


def _link(url: str, sample: MatrixRow, kep: Kep, web_url: str) -> str:
    """``url`` (the sample row's link) adapted to ``kep``: its KEP directory or trailing number replaced."""
    directory = kep.path.rsplit("/", 1)[0]
    found = re.search(rf"keps/[^)\s]*?/{sample.number}-[^/)\s]+", url)
    if found:
        return url[: found.start()] + directory + url[found.end() :]
    if re.search(rf"(?<!\d){sample.number}/?$", url):
        return re.sub(rf"{sample.number}(/?)$", rf"{kep.number}\1", url)
    return f"{web_url.rstrip('/')}/tree/master/{directory}"


def _line(cells: list[str], header_line: str) -> str:
    """A table row in the header's shape: its indentation and blockquote marks (``  ``, ``> ``), leading /
    trailing pipes as the header has them (and where an empty first or last cell needs one), ``\\r`` kept."""
    cr = "\r" if header_line.endswith("\r") else ""
    bare = header_line.rstrip("\r").rstrip()
    prefix = bare[: len(bare) - len(bare.lstrip(" \t>"))]
    lead, trail = bare[len(prefix) :].startswith("|"), bare.endswith("|")
    lead, trail = lead or not cells[0], trail or not cells[-1]  # GFM drops an empty edge cell without its pipe
    body = " | ".join(cells)
    return prefix + ("| " if lead else "") + body + (" |" if trail else "") + cr
