"""GFM tables located by markdown-it-py's line map, split into cells by byte span.

Pure and byte-preserving: a page is a list of lines (``text.split("\\n")``,
so ``\\r`` stays at the end of its line and a missing final newline stays
missing). A :class:`Table` names the line indices of its header and body
rows; :func:`split_row` gives each cell's ``(start, end)`` span inside the
line so one cell can be replaced without touching any other byte.

GFM table syntax: https://github.github.com/gfm/#tables-extension-
"""

from __future__ import annotations

from typing import NamedTuple

from markdown_it import MarkdownIt

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
    """A cell's trimmed ``text`` and the ``(start, end)`` span of that text in the line."""

    text: str
    start: int
    end: int


def find_tables(text: str) -> list[Table]:
    """Every GFM table in ``text`` (a whole page), in page order.

    Uses markdown-it-py's token ``map`` (line ranges), so tables in code
    fences or HTML blocks are not mistaken for tables. Every ``\\r`` is
    dropped before parsing: markdown-it counts a lone ``\\r`` as a line break,
    ``text.split("\\n")`` does not, and the line indices must agree. A BOM
    is dropped, and lines are clipped after 256 pipes (a 2000-column table
    took 8 s to parse), neither of which moves a line.
    """
    tables: list[Table] = []
    lines = text.replace("\r", "").removeprefix("\ufeff").split("\n")
    tokens = _MD.parse("\n".join(_clip(line) for line in lines))
    start, body = None, []
    for tok in tokens:
        if tok.type == "table_open" and tok.map is not None:
            start, body = tok.map[0], []
        elif tok.type == "tr_open" and start is not None and tok.map and tok.map[0] > start + 1:
            body.append(tok.map[0])
        elif tok.type == "table_close" and start is not None:
            tables.append(Table(header=start, delimiter=start + 1, body=tuple(body)))
            start = None
    return tables


def _clip(line: str) -> str:
    """``line`` cut just after its 256th ``|`` (for locating tables only)."""
    if line.count("|") <= _MAX_PIPES:
        return line
    pos = -1
    for _ in range(_MAX_PIPES):
        pos = line.index("|", pos + 1)
    return line[: pos + 1]


def split_row(line: str) -> list[Cell]:
    """Split one table row into cells on unescaped ``|`` (``\\|`` stays inside a cell).

    Leading/trailing pipes are optional, as in GFM. A trailing ``\\r`` and any
    blockquote/indent prefix before the first pipe are not part of a cell.
    """
    body_end = len(line) - 1 if line.endswith("\r") else len(line)
    pipes = _pipe_positions(line, body_end)
    first = line[:pipes[0]].replace("\ufeff", "").strip() if pipes else line.strip()
    bounds: list[tuple[int, int]] = []
    if not pipes:
        bounds.append((0, body_end))
    else:
        lead = 0 if first and not first.startswith(">") else None
        if lead is not None:
            bounds.append((0, pipes[0]))
        for a, b in zip(pipes, pipes[1:]):
            bounds.append((a + 1, b))
        if line[pipes[-1] + 1:body_end].strip():
            bounds.append((pipes[-1] + 1, body_end))
    cells = []
    for a, b in bounds:
        raw = line[a:b]
        stripped = raw.strip()
        left = a + (len(raw) - len(raw.lstrip()) if stripped else min(1, len(raw)))
        cells.append(Cell(stripped, left, left + len(stripped)))
    return cells


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
    """``line`` with ``cell``'s text replaced by ``text`` (padding and every other byte kept)."""
    return line[:cell.start] + text + line[cell.end:]


def escape_cell(text: str) -> str:
    """Make ``text`` safe inside a table cell: ``|`` becomes ``\\|``, newlines become spaces."""
    return text.replace("\r", " ").replace("\n", " ").replace("|", "\\|")


def unescape_cell(text: str) -> str:
    """Inverse of :func:`escape_cell` for ``\\|``."""
    return text.replace("\\|", "|")
