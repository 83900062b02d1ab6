"""The KEP matrix on a wiki page: which tables, which columns, which row is which KEP.

Pure. A matrix table is any GFM table whose header has a KEP column; its
other columns get *roles* by header text (configurable aliases, see
:data:`DEFAULT_ALIASES`). Tables with different column sets on one page are
normal. Cell formats (the user's page):

- status role: ``<status> / <stage>`` (stage part optional);
- milestones role: ``<alpha> / <beta> / <stable>``, ``-`` when empty;
- feature gates role: ```Gate`, `Other``` or ``-`` / ``NA``.

A row is keyed by its KEP cell: ``4671-gang-scheduling``, ``[4671-gang-scheduling](url)``,
``KEP-4671`` or ``4671``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from bot.kep import Problem, is_gate_name
from bot.wiki.tables import Cell, escape_cell, find_tables, replace_cell, split_row, unescape_cell

#: Header aliases per column role; compared case-insensitively with spaces collapsed.
DEFAULT_ALIASES: dict[str, tuple[str, ...]] = {
    "kep": ("KEP",),
    "status": ("状态", "Status"),
    "stage": ("Stage",),
    "milestones": ("Alpha / Beta / GA", "Alpha / Beta / Stable"),
    "alpha": ("Alpha",),
    "beta": ("Beta",),
    "stable": ("GA", "Stable"),
    "feature_gates": ("Feature gate", "Feature gates"),
}
#: Fields the bot compares, in report order (the JSON report's ``field`` values).
FIELDS = ("status", "stage", "alpha", "beta", "stable", "feature_gates")
#: Where each field lives: ``(role, part index)``; composite cells are split on ``/``.
FIELD_CELLS: dict[str, tuple[tuple[str, int], ...]] = {
    "status": (("status", 0),),
    "stage": (("status", 1), ("stage", 0)),
    "alpha": (("milestones", 0), ("alpha", 0)),
    "beta": (("milestones", 1), ("beta", 0)),
    "stable": (("milestones", 2), ("stable", 0)),
    "feature_gates": (("feature_gates", 0),),
}
#: How many ``/``-separated parts a role's cell has: ``(min, max)``.
ROLE_PARTS = {"status": (1, 2), "milestones": (3, 3)}
BLANKS = frozenset({"", "-", "—", "–", "n/a", "na", "none"})

_KEP_RE = re.compile(r"^(?:KEP[- ]?)?([0-9]{1,9})(?:-([A-Za-z0-9][A-Za-z0-9_.-]*))?$", re.IGNORECASE)
_LINK_RE = re.compile(r"^\[([^\]]+)\]\([^)]*\)$")
_SEP_RE = re.compile(r"(\s*/\s*)")
_GATE_RE = re.compile(r"`([^`]+)`")


class MatrixRow(NamedTuple):
    """One KEP row: ``page`` path, ``line`` index (0-based), KEP ``number`` and ``slug``
    (``""`` when the cell has none), and the row's cells by role."""

    page: str
    line: int
    number: int
    slug: str
    cells: dict[str, Cell]

    def value(self, field: str) -> str | None:
        """The field's text as the page writes it (``None`` when this table has no such cell)."""
        located = locate(self, field)
        return None if located is None else located[2][located[1]]


class MatrixPage(NamedTuple):
    """A parsed page: its ``lines`` (split on ``\\n``), KEP ``rows`` and ``problems`` (rows left as is)."""

    path: str
    lines: list[str]
    rows: list[MatrixRow]
    problems: list[Problem]


def column_roles(header: Sequence[str], aliases: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """Map role -> column index from header cell texts; the first matching column wins."""
    wanted = {_norm(a): role for role, names in aliases.items() for a in names}
    roles: dict[str, int] = {}
    for index, text in enumerate(header):
        role = wanted.get(_norm(text))
        if role and role not in roles:
            roles[role] = index
    return roles


def _norm(text: str) -> str:
    return " ".join(text.replace("*", "").split()).casefold()


def parse_kep_cell(text: str) -> tuple[int, str] | None:
    """``(number, slug)`` from a KEP cell (``4671-x``, ``[4671-x](url)``, ``KEP-4671``, ``4671``), else ``None``."""
    text = text.strip().strip("*_`").strip()
    link = _LINK_RE.match(text)
    if link:
        text = link.group(1).strip().strip("*_`").strip()
    m = _KEP_RE.match(text)
    return (int(m.group(1)), m.group(2) or "") if m else None


def parse_page(path: str, text: str, aliases: Mapping[str, Sequence[str]] = DEFAULT_ALIASES) -> MatrixPage:
    """Find the KEP rows of a page.

    ``path`` names the page in problems; ``text`` is the page as decoded
    text. Rows whose cell count differs from the header, whose KEP cell is
    not a KEP, or whose composite cells do not split are reported in
    ``problems`` (``key`` is ``line N``, 1-based) and left out of ``rows``.
    """
    lines = text.split("\n")
    rows: list[MatrixRow] = []
    problems: list[Problem] = []
    matrices = 0
    for table in find_tables(text):
        header = [c.text for c in split_row(lines[table.header])]
        roles = column_roles(header, aliases)
        if "kep" not in roles:
            continue
        matrices += 1
        for index in table.body:
            cells = split_row(lines[index])
            where = f"line {index + 1}"
            if len(cells) != len(header):
                problems.append(Problem(path, where, f"row has {len(cells)} cells, header has {len(header)}; left as is"))
                continue
            key = parse_kep_cell(cells[roles["kep"]].text)
            if key is None:
                problems.append(Problem(path, where, f"KEP cell {cells[roles['kep']].text!r} names no KEP; left as is"))
                continue
            row = MatrixRow(path, index, key[0], key[1], {role: cells[i] for role, i in roles.items()})
            bad = [role for role in ROLE_PARTS if role in row.cells and _parts(row.cells[role].text, role) is None]
            if bad:
                cell = row.cells[bad[0]]
                problems.append(Problem(path, where, f"{header[roles[bad[0]]]} cell {cell.text!r} is not in the "
                                                     f"expected format; left as is"))
                continue
            rows.append(row)
    if not matrices:
        names = ", ".join(repr(a) for a in aliases.get("kep", ()))
        problems.append(Problem(path, "", f"no table with a KEP column ({names}); nothing to sync on this page"))
    return MatrixPage(path, lines, rows, problems)


def _parts(text: str, role: str) -> list[str] | None:
    """Split a cell into ``[part, sep, part, ...]``; ``None`` when the count is wrong for the role."""
    lo, hi = ROLE_PARTS.get(role, (1, 1))
    pieces = _SEP_RE.split(text) if hi > 1 else [text]
    if not lo <= (len(pieces) + 1) // 2 <= hi:
        return None
    return pieces


def locate(row: MatrixRow, field: str) -> tuple[str, int, list[str]] | None:
    """``(role, piece index, pieces)`` of ``field`` in ``row``, or ``None`` when the row has no such cell."""
    for role, part in FIELD_CELLS[field]:
        cell = row.cells.get(role)
        if cell is None:
            continue
        pieces = _parts(cell.text, role)
        if pieces is not None and 2 * part < len(pieces):
            return role, 2 * part, pieces
    return None


def cell_gates(text: str) -> tuple[str, ...]:
    """Feature gate names in a cell: backticked names, else comma-separated identifiers; sorted, unique."""
    names = _GATE_RE.findall(text)
    if not names:
        if text.strip().casefold() in BLANKS:
            return ()
        names = [t for t in re.split(r"[,，、\s]+", text) if is_gate_name(t)]
    return tuple(sorted({n.strip() for n in names if n.strip().casefold() not in BLANKS}))


def render_gates(gates: Sequence[str]) -> str:
    """Cell text for a gate list in the page's style: ```A`, `B``` or ``-``."""
    return ", ".join(f"`{g}`" for g in gates) if gates else "-"


def render_row(line: str, row: MatrixRow, updates: Mapping[str, str]) -> str:
    """``line`` with the given fields replaced (``{field: new cell text}``), every other byte kept.

    Values are escaped for a table cell; ``""`` renders as ``-``.
    """
    by_role: dict[str, list[str]] = {}
    for field, value in updates.items():
        located = locate(row, field)
        if located is None:
            continue
        role, index, pieces = located
        pieces = by_role.setdefault(role, pieces)
        pieces[index] = escape_cell(value) if value else "-"
    # Replace right-most cells first so earlier spans stay valid.
    for role in sorted(by_role, key=lambda r: row.cells[r].start, reverse=True):
        line = replace_cell(line, row.cells[role], "".join(by_role[role]))
    return line


def cell_value(text: str) -> str:
    """A cell part as a comparable value: unescaped, stripped, ``-`` and blanks as ``""``."""
    text = unescape_cell(text).strip()
    return "" if text.casefold() in BLANKS else text
