"""GFM tables located by markdown-it-py's line map, split into cells by byte span.

Pure and byte-preserving: a page is a list of lines (``text.split("\\n")``,
so ``\\r`` stays at the end of its line and a missing final newline stays
missing). A :class:`Table` names the line indices of its header and body
rows; :func:`split_row` gives each cell's ``(start, end)`` span inside the
line so one cell can be replaced without touching any other byte, and
:func:`column_widths` / :func:`fill_cell` keep a table that is padded to
column width (display width: East Asian Wide and Fullwidth characters count
double, combining marks zero) aligned when one cell changes.

GFM table syntax: https://github.github.com/gfm/#tables-extension-
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Sequence
from typing import NamedTuple

from markdown_it import MarkdownIt
from markdown_it.token import Token

from bot.wiki.frontmatter import block_end

# Only block structure is needed (line maps), so inline parsing is off.
_MD = MarkdownIt("commonmark").enable("table").disable("inline")
#: Pipes kept per line when locating tables; cells past it cannot change which lines are table rows.
_MAX_PIPES = 256


class Table(NamedTuple):
    """One GFM table: ``header`` line index, ``delimiter`` line index, ``body`` line indices (0-based)."""

    header: int
    delimiter: int
    body: tuple[int, ...]


class Cell(NamedTuple):
    """A cell's trimmed ``text``, the ``(start, end)`` span of that text in the line, and the
    ``(lo, hi)`` span of the whole cell between its pipes (padding included)."""

    text: str
    start: int
    end: int
    lo: int
    hi: int


def find_tables(text: str) -> list[Table]:
    """Every GFM table in ``text`` (a whole page), in page order.

    Uses markdown-it-py's token ``map`` (line ranges), so tables in code
    fences or HTML blocks are not mistaken for tables. Every ``\\r`` is
    dropped before parsing: markdown-it counts a lone ``\\r`` as a line break,
    ``text.split("\\n")`` does not, and the line indices must agree. A BOM
    is dropped, and lines are clipped after 256 pipes (a 2000-column table
    took 8 s to parse), neither of which moves a line. The lines of a front
    matter block (:func:`bot.wiki.frontmatter.block_end`) are read as blank:
    a table written there is YAML, not page content.
    """
    tables: list[Table] = []
    lines = text.replace("\r", "").removeprefix("\ufeff").split("\n")
    end = block_end(lines)
    if end is not None:
        lines[: end + 1] = [""] * (end + 1)
    start: int | None = None
    body: list[int] = []
    for tok in _table_tokens("\n".join(_clip(line) for line in lines)):
        if tok.type == "table_open" and tok.map is not None:
            start, body = tok.map[0], []
        elif tok.type == "tr_open" and start is not None and tok.map and tok.map[0] > start + 1:
            body.append(tok.map[0])
        elif tok.type == "table_close" and start is not None:
            tables.append(Table(header=start, delimiter=start + 1, body=tuple(body)))
            start = None
    return tables


class _TableTokens(list[Token]):
    """A token list that keeps only what locates a table (``table_open``, ``tr_open``, ``table_close``): every
    other token markdown-it-py makes (three per cell, and the rest of the page) is dropped as it is appended,
    so the page's token stream never builds up (about 10 kB per row of a wide matrix)."""

    KEPT = frozenset(("table_open", "tr_open", "table_close"))

    def append(self, token: Token) -> None:
        if token.type in self.KEPT:
            super().append(token)


def _table_tokens(src: str) -> list[Token]:
    """The table tokens of ``src``: :meth:`MarkdownIt.parse` with a :class:`_TableTokens` list (the block rules
    that read back earlier tokens are for lists and task lists, and see only what is kept)."""
    from markdown_it.rules_core import StateCore

    state = StateCore(src, _MD, {})
    state.tokens = _TableTokens()  # after: StateCore takes ``tokens or []``, and an empty list is falsy
    _MD.core.process(state)
    return state.tokens


def _clip(line: str) -> str:
    """``line`` cut just after its 256th ``|`` (for locating tables only)."""
    if line.count("|") <= _MAX_PIPES:
        return line
    pos = -1
    for _ in range(_MAX_PIPES):
        pos = line.index("|", pos + 1)
    return line[: pos + 1]


#: The blockquote marks before a row (``> ``, ``> > ``, indented), up to and including the last ``>`` and one blank.
_QUOTE_RE = re.compile(r"[\ufeff \t]*(?:>[ \t]?)+")


def split_row(line: str) -> list[Cell]:
    """Split one table row into cells on unescaped ``|`` (``\\|`` stays inside a cell).

    Leading/trailing pipes are optional, as in GFM, also in a blockquote (``> KEP | Status``). A trailing
    ``\\r`` and any blockquote/indent prefix before the first pipe are not part of a cell.
    """
    body_end = len(line) - 1 if line.endswith("\r") else len(line)
    pipes = _pipe_positions(line, body_end)
    first = line[: pipes[0]].replace("\ufeff", "").strip() if pipes else line.strip()
    bounds: list[tuple[int, int]] = []
    if not pipes:
        bounds.append((0, body_end))
    else:
        quote = _QUOTE_RE.match(line) if first.startswith(">") else None
        lead = quote.end() if quote else 0  # "> KEP | Status": the first cell starts after the marks
        if line[lead : pipes[0]].replace("\ufeff", "").strip():
            bounds.append((lead, pipes[0]))
        for a, b in itertools.pairwise(pipes):
            bounds.append((a + 1, b))
        if line[pipes[-1] + 1 : body_end].strip():
            bounds.append((pipes[-1] + 1, body_end))
    cells = []
    for a, b in bounds:
        raw = line[a:b]
        stripped = raw.strip()
        left = a + (len(raw) - len(raw.lstrip()) if stripped else min(1, len(raw)))
        cells.append(Cell(stripped, left, left + len(stripped), a, b))
    return cells


#: A list item's marker before a table that starts on the item's first line (``- | KEP | Status |``).
_LIST_MARK_RE = re.compile(r"^[\ufeff \t]*(?:[-*+]|[0-9]{1,9}[.)])[ \t]+(?=\|)")


#: The same marker before a first header cell written without a leading pipe (``1. KEP | Stage``).
_LIST_CELL_RE = re.compile(r"^(?:[-*+]|[0-9]{1,9}[.)])[ \t]+")


def header_row(lines: Sequence[str], table: Table) -> list[Cell]:
    """The header cells of ``table`` in the page's ``lines``: :func:`split_row` of its header line, without the
    list marker of a table that starts on a list item's first line: ``- | KEP | Status |`` (the header then has
    one cell more than the delimiter row, and that cell is the marker) or ``1. KEP | Stage`` (the marker
    starts the first cell)."""
    cells = split_row(lines[table.header])
    if not listed_header(lines, table):
        return cells
    if len(cells) == len(split_row(lines[table.delimiter])) + 1:
        return cells[1:]
    first = cells[0]
    mark = _LIST_CELL_RE.match(first.text)
    end = mark.end() if mark else 0
    return [first._replace(text=first.text[end:], start=first.start + end), *cells[1:]]


def listed_header(lines: Sequence[str], table: Table) -> bool:
    """True when ``table``'s header line starts with a list item's marker (:func:`header_row`); its rows then
    take their indentation from the delimiter row."""
    header = lines[table.header]
    cells = split_row(header)
    if _LIST_MARK_RE.match(header):
        return len(cells) == len(split_row(lines[table.delimiter])) + 1
    return (
        bool(cells)
        and bool(_LIST_CELL_RE.match(cells[0].text))
        and header.lstrip(" \t\ufeff").startswith(cells[0].text)
    )


def _pipe_positions(line: str, end: int) -> list[int]:
    positions, i = [], 0
    while i < end:
        ch = line[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "|":
            positions.append(i)
        i += 1
    return positions


def replace_cell(line: str, cell: Cell, text: str) -> str:
    """``line`` with ``cell``'s text replaced by ``text`` (padding and every other byte kept).

    An empty cell keeps its padding on both sides: ``| |`` becomes ``| text |``
    (a cell written ``||`` gets one space each side when the row pads its other cells).
    """
    if not cell.text and cell.hi - cell.lo < 2 and text:
        raw = line[cell.lo : cell.hi]
        if raw or "| " in line:
            return line[: cell.lo] + f" {text} " + line[cell.hi :]
    return line[: cell.start] + text + line[cell.end :]


def display_width(text: str) -> int:
    """Columns ``text`` takes in a monospace font: East Asian Wide/Fullwidth 2, combining marks and
    format characters 0, else 1 (Unicode UAX #11, via ``unicodedata``)."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def column_widths(lines: Sequence[str]) -> list[int | None]:
    """Per column of a table (``lines``: header, delimiter and body rows), the display width every
    line gives that cell, padding included, or ``None`` when the lines differ (not aligned).

    A column the last cell of some line does not close with a pipe is never aligned.
    """
    rows = [(line, split_row(line)) for line in lines]
    count = max((len(cells) for _, cells in rows), default=0)
    widths: list[int | None] = [None] * count
    for i in range(count):
        width = None
        for line, cells in rows:  # stops at the first line that differs (usually the delimiter row)
            w = display_width(line[cells[i].lo : cells[i].hi]) if i < len(cells) and _closed(line, cells[i]) else None
            if w is None or (width is not None and w != width):
                break
            width = w
        else:
            widths[i] = width
    return widths


def _closed(line: str, cell: Cell) -> bool:
    return cell.hi < len(line) and line[cell.hi] == "|"


def column_alignments(delimiter: str) -> list[str]:
    """``"left"``, ``"right"`` or ``"center"`` per column, from a delimiter row (``:--``, ``--:``, ``:-:``)."""
    out = []
    for cell in split_row(delimiter):
        spec = cell.text.replace(" ", "")
        out.append(
            "center"
            if spec.startswith(":") and spec.endswith(":") and len(spec) > 1
            else "right"
            if spec.endswith(":")
            else "left"
        )
    return out


def fill_cell(line: str, cell: Cell, text: str, width: int | None, align: str = "left") -> str:
    """``line`` with ``cell``'s text replaced by ``text``, padded so the cell keeps ``width`` (display
    columns between its pipes) when the text fits; otherwise (or with ``width`` ``None``) as
    :func:`replace_cell`, with the padding of an aligned column trimmed to one space a side.

    ``align`` (from :func:`column_alignments`) says where the padding goes; never before the text of a first
    cell with no pipe before it: four spaces there would make the line an indented code block, no table row.
    """
    if width is None:
        return replace_cell(line, cell, text)
    if align != "left" and "|" not in line[: cell.lo]:
        align = "left"
    raw = line[cell.lo : cell.hi]
    blank = not raw.strip()
    lead = raw[: len(raw) - len(raw.lstrip())] if not blank else raw[: min(1, len(raw))]
    trail = raw[len(raw.rstrip()) :] if not blank else raw[len(lead) :][:1]
    pad_l, pad_r = min(1, len(lead)), min(1, len(trail))
    if blank and len(raw) < 2:
        pad_l = pad_r = 1 if raw or "| " in line else 0
    room = width - display_width(text)
    if align == "left" and room - display_width(lead) >= pad_r:
        cell_text = lead + text + " " * (room - display_width(lead))
    elif align == "right" and room - display_width(trail) >= pad_l:
        cell_text = " " * (room - display_width(trail)) + text + trail
    elif room - pad_l - pad_r >= 0:
        left = pad_l + (room - pad_l - pad_r) // 2 if align == "center" else pad_l
        right = room - left
        cell_text = " " * left + text + " " * right
    else:
        cell_text = " " * pad_l + text + " " * pad_r
    return line[: cell.lo] + cell_text + line[cell.hi :]


def keep_edge_cells(line: str, count: int, first_at: int) -> str:
    """``line``, a row meant to have ``count`` cells whose first cell's span starts at ``first_at``, with a
    pipe added before an empty first cell and after an empty last cell that have none: without outer pipes
    GFM reads ``  | 4671 | beta`` as two cells, not three with an empty first one, and the cells after it
    would shift a column. A row that already splits into ``count`` cells is returned unchanged."""
    if len(split_row(line)) >= count:
        return line
    cr = "\r" if line.endswith("\r") else ""
    body = line[: len(line) - len(cr)]
    if "|" not in body[:first_at] and body[first_at:].lstrip(" \t").startswith("|"):
        padded = body[first_at : first_at + 2] == "  "  # a padded blank cell: its first space becomes the pipe
        body = body[:first_at] + "|" + body[first_at + padded :]
    if len(split_row(body + cr)) < count:
        body += "|" if body.endswith((" ", "\t")) else " |"
    return body + cr


def escape_cell(text: str) -> str:
    """Make ``text`` safe inside a table cell: ``|`` becomes ``\\|``, newlines become spaces."""
    return text.replace("\r", " ").replace("\n", " ").replace("|", "\\|")


def unescape_cell(text: str) -> str:
    """Inverse of :func:`escape_cell` for ``\\|``."""
    return text.replace("\\|", "|")
