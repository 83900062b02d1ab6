"""The KEP matrix on a wiki page: which tables, which columns, which row is which KEP.

Pure. A matrix table is any GFM table whose header has a KEP column; its
other columns get *roles* by header text (configurable aliases, see
:data:`DEFAULT_ALIASES`). Tables with different column sets on one page are
normal. Cell formats (as the tracked matrix page writes them):

- status role: ``<status> / <stage>`` (stage part optional);
- milestones role: ``<alpha> / <beta> / <stable>``, ``-`` when empty;
- feature gates role: ```Gate`, `Other``` or ``-`` / ``NA``.

A composite cell's parts are separated by ``/``, the full-width ``／`` (as CJK
input methods type it), an escaped pipe ``\\|`` or ``｜``, with any spaces
around (non-breaking and ideographic ones too); a rewritten part keeps the
cell's separators. A field may show in several cells of a row (a composite
``Status`` cell and a ``Stage`` column, or two columns with one role): every
one of them is read and written, so a row never ends contradicting itself.

A row is keyed by its KEP cell in any form people write (:mod:`bot.wiki.kepnames`): ``4671``,
``4671-gang-scheduling``, ``KEP-4671``, ``#4671``, ``kubernetes/enhancements#4671``, a ``kep.k8s.io`` or
tracking-issue link, as link text or target. Only the KEP column keys a row.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from bot.model.kep import (
    DEPRECATION_STAGES,
    STAGES,
    STATUSES,
    Problem,
    is_gate_name,
    is_unset_milestone,
    normalize_milestone,
    same_milestone,
)
from bot.wiki.headers import DEFAULT_ALIASES
from bot.wiki.kepnames import foreign_reference, name_in_cell, parse_kep_cell, reference_definitions
from bot.wiki.tables import (
    Cell,
    column_alignments,
    column_widths,
    display_width,
    escape_cell,
    fill_cell,
    find_tables,
    header_row,
    split_row,
    unescape_cell,
)
from bot.wiki.vocabulary import Spelling, fold, learn, milestone_bareness, spell_milestone, spell_word, stage_word

#: Fields the bot compares, in report order (the JSON report's ``field`` values).
FIELDS = ("status", "stage", "alpha", "beta", "stable", "feature_gates")
#: Where each field lives: ``(role, part index)``; composite cells are split on their separators.
FIELD_CELLS: dict[str, tuple[tuple[str, int], ...]] = {
    "status": (("status", 0),),
    "stage": (("status", 1), ("stage", 0)),
    "alpha": (("milestones", 0), ("alpha", 0)),
    "beta": (("milestones", 1), ("beta", 0)),
    "stable": (("milestones", 2), ("stable", 0)),
    "feature_gates": (("feature_gates", 0),),
}
#: How many separated parts a role's cell has: ``(min, max)``.
ROLE_PARTS = {"status": (1, 2), "milestones": (3, 3)}
#: Roles whose every part holds one value the bot may rewrite whole.
OWNED_ROLES = ("status", "stage", "milestones", "alpha", "beta", "stable")
BLANKS = frozenset({"", "-", "—", "–", "n/a", "na", "none"})

#: A composite cell's separator: ``/``, full-width ``／``, an escaped pipe ``\|`` or ``｜``, any spaces around;
#: never the slash of the blank ``n/a``.
_SEP_RE = re.compile(r"([\s\u200b]*(?:(?<!\bn)(?<!\bN)/(?![aA]\b)|／|\\\||｜)[\s\u200b]*)")
#: One value: no spaces, commas, semicolons or brackets inside (``v1.30``, ``implementable``, ``TBD``).
_ONE_VALUE_RE = re.compile(r"^[^\s,;()\[\]（），；、]+$")
_GATE_RE = re.compile(r"`([^`]+)`")
#: A part wrapped whole in emphasis or a code span: the marks and the text inside (never ``~~``: a
#: struck-through part is history, not the value, and a new value must not be written struck through).
_EMPHASIS_RE = re.compile(r"^(\*{1,3}|_{1,3}|`)(\S(?:.*\S)?)\1$")
#: An HTML tag inside a part (``alpha<br>``).
_TAG_RE = re.compile(r"</?[A-Za-z][^<>]*>")
#: A milestone with a patch number (``v1.35.0``): the release is the first two numbers.
_PATCH_RE = re.compile(r"^(v?[0-9]+\.[0-9]+)\.[0-9]+$", re.IGNORECASE)
#: Characters of a plain word besides letters, combining marks and decimal digits.
_WORD_EXTRA = frozenset(".-_")


class MatrixRow(NamedTuple):
    """One KEP row: ``page`` path, ``line`` index (0-based), KEP ``number`` and ``slug``
    (``""`` when the cell has none), and the row's cells by column key: the role
    (``"status"``), or ``"status#2"`` for a second column with that role.

    ``layout``: per column key, ``(width, alignment)`` from :func:`bot.wiki.tables.column_widths`
    (``width`` ``None`` when the table is not padded to column width there);
    ``vocab``: per column key, how that column (else the page) spells its values; ``beyond``: the column keys
    past the end of a row with fewer cells than the header, read as empty cells (as GitHub shows them) and
    never written (:func:`beyond_end`).
    """

    page: str
    line: int
    number: int
    slug: str
    cells: dict[str, Cell]
    layout: Mapping[str, tuple[int | None, str]] = {}
    vocab: Mapping[str, Spelling] = {}
    beyond: frozenset[str] = frozenset()

    def value(self, field: str) -> str | None:
        """The field's text as the page writes it in its first cell (``None`` when this table has no such cell)."""
        shown = self.values(field)
        return shown[0] if shown else None

    def values(self, field: str) -> list[str]:
        """The field's text in every cell of the row that shows it, in column order of :data:`FIELD_CELLS`."""
        return [pieces[index] for _, index, pieces in locate_all(self, field)]


class ProblemRow(NamedTuple):
    """A row of a KEP table left as is (a problem says why) whose KEP cell still names a KEP
    (:func:`bot.wiki.kepnames.name_in_cell`): 0-based ``line``, KEP ``number`` and ``slug`` (``""`` when unsure).
    The KEP has a row on the page all the same: it is no new KEP candidate and gets no second row."""

    line: int
    number: int
    slug: str


class MatrixPage(NamedTuple):
    """A parsed page: its ``lines`` (split on ``\\n``), KEP ``rows``, ``problems`` (rows left as is) and
    ``left``: the rows left as is that still name a KEP (:class:`ProblemRow`)."""

    path: str
    lines: list[str]
    rows: list[MatrixRow]
    problems: list[Problem]
    left: tuple[ProblemRow, ...] = ()


def column_roles(header: Sequence[str], aliases: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """Map role -> column index from header cell texts; the first matching column wins."""
    roles: dict[str, int] = {}
    for key, index in column_keys(header, aliases).items():
        roles.setdefault(key.split("#")[0], index)
    return roles


def column_keys(header: Sequence[str], aliases: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """Map column key -> column index: the role for its first column, ``role#2``, ``role#3`` ... for
    further columns with the same role (a field shown twice is kept in step, never left stale)."""
    wanted = {normalize_header(a): role for role, names in aliases.items() for a in names}
    keys: dict[str, int] = {}
    seen: dict[str, int] = {}
    for index, text in enumerate(header):
        role = wanted.get(normalize_header(text))
        if role:
            seen[role] = seen.get(role, 0) + 1
            keys[role if seen[role] == 1 else f"{role}#{seen[role]}"] = index
    return keys


def normalize_header(text: str) -> str:
    """A header (or alias) as compared: NFKC (``Ｂｅｔａ``, ``／``), no ``*``, one space around ``/``, case-folded."""
    text = unicodedata.normalize("NFKC", text).replace("*", "").replace("\\|", "/").replace("|", "/")
    return " ".join(re.sub(r"\s*/\s*", " / ", text).split()).casefold()


#: What to do about a configured page with no KEP table: the usual fix first (``kep-sync validate`` and a sync's
#: message, and a sync's Problems, all say it).
NO_KEP_TABLE_FIX = (
    "if it holds no KEP matrix, remove it from wiki.pages; else add the KEP column's header to columns.kep "
    "(kep-sync init writes it)"
)


def parse_page(path: str, text: str, aliases: Mapping[str, Sequence[str]] = DEFAULT_ALIASES) -> MatrixPage:
    """Find the KEP rows of a page.

    ``path`` names the page in problems; ``text`` is the page as decoded
    text. A row with fewer cells than the header is read padded with empty
    cells, as GitHub shows it (:attr:`MatrixRow.beyond`). Rows with more cells
    than the header, whose KEP cell is not a KEP, or whose owned cells do not split into one value per part are
    reported in ``problems`` (``key`` is ``line N``, 1-based; the message
    starts with the row's KEP cell) and left out of ``rows``; those whose KEP
    cell still names a KEP (:func:`name_in_cell`) are in ``left``.
    """
    lines = text.split("\n")
    definitions = reference_definitions(lines)
    tables: list[list[MatrixRow]] = []
    problems: list[Problem] = []
    left: list[ProblemRow] = []
    for table in find_tables(text):
        header = [c.text for c in header_row(lines, table)]
        keys = column_keys(header, aliases)
        if "kep" not in keys:
            continue
        for i, text in enumerate(header):
            like = None if i in keys.values() else lookalike_column(text, aliases)
            if like:
                problems.append(
                    Problem(
                        path,
                        f"line {table.header + 1}",
                        f"column {text!r} looks like the {like[0]} "
                        f"column ({like[1]!r}) but is not one of its names, so kep-sync neither reads "
                        f"nor writes it and its values can go stale; add it to columns.{like[0]}",
                    )
                )
        widths = column_widths([lines[i] for i in (table.header, table.delimiter, *table.body)])
        aligns = column_alignments(lines[table.delimiter])
        layout = {
            key: (widths[i] if i < len(widths) else None, aligns[i] if i < len(aligns) else "left")
            for key, i in keys.items()
        }
        rows: list[MatrixRow] = []
        for index in table.body:
            cells = split_row(lines[index])
            kep_text = cells[keys["kep"]].text if keys["kep"] < len(cells) else ""
            where, who = f"line {index + 1}", f"KEP cell {kep_text!r}"
            foreign = foreign_reference(kep_text, definitions)
            named = None if foreign else name_in_cell(kep_text)
            if named is not None and (len(cells) > len(header) or parse_kep_cell(kep_text) is None):
                left.append(ProblemRow(index, *named))
            if len(cells) > len(header):
                problems.append(
                    Problem(path, where, f"{who}: row has {len(cells)} cells, header has {len(header)}; left as is")
                )
                continue
            key = None if foreign else parse_kep_cell(kep_text)
            if key is None:
                problems.append(Problem(path, where, f"{who} names no KEP; left as is"))
                continue
            beyond, shown = frozenset(k for k, i in keys.items() if i >= len(cells)), len(cells)
            cells += [_end_cell(lines[index])] * (len(header) - len(cells))
            row = MatrixRow(path, index, key[0], key[1], {k: cells[i] for k, i in keys.items()}, layout, beyond=beyond)
            bad = [k for k in row.cells if _role(k) in OWNED_ROLES and _parts(row.cells[k].text, _role(k)) is None]
            if bad and bad[0] in beyond:
                left.append(ProblemRow(index, key[0], key[1]))
                problems.append(
                    Problem(
                        path,
                        where,
                        f"{who}: row has {shown} cells, header has "
                        f"{len(header)}; its {header[keys[bad[0]]]} cell is past the row's end and cannot be empty; "
                        "left as is: add the missing `| |` cells",
                    )
                )
                continue
            if bad:
                left.append(ProblemRow(index, key[0], key[1]))
                cell = row.cells[bad[0]]
                why = (
                    "has a struck-through part (history, not a value)"
                    if "~~" in cell.text
                    else "is not in the expected format"
                )
                problems.append(
                    Problem(path, where, f"{who}: {header[keys[bad[0]]]} cell {cell.text!r} {why}; left as is")
                )
                continue
            rows.append(row)
        tables.append(rows)
    if not tables:
        names = ", ".join(repr(a) for a in aliases.get("kep", ()))
        problems.append(
            Problem(path, "", f"no table with a KEP column ({names}); nothing to sync on this page: {NO_KEP_TABLE_FIX}")
        )
    return MatrixPage(path, lines, _with_vocabulary(tables), problems, tuple(left))


def _end_cell(line: str) -> Cell:
    """An empty cell at the end of ``line`` (before a trailing ``\r``): a cell GitHub shows past a short row's end."""
    end = len(line) - line.endswith("\r")
    return Cell("", end, end, end, end)


def beyond_end(row: MatrixRow, updates: Mapping[str, str]) -> list[str]:
    """The column keys of ``row`` past its end (:attr:`MatrixRow.beyond`) that :func:`render_row` would write
    for ``updates``, in column order: such a row is left as is, since a cell added there could shift the
    row's other cells. ``[]`` when every cell to write is in the row."""
    out = {
        key
        for field, value in updates.items()
        for key, index, pieces in locate_all(row, field)
        if key in row.beyond and not same_value(field, pieces[index], value)
    }
    return sorted(out, key=list(row.cells).index)


def _role(key: str) -> str:
    return key.split("#")[0]


def lookalike_column(header: str, aliases: Mapping[str, Sequence[str]]) -> tuple[str, str] | None:
    """``(role, alias)`` when a header that has no role ends with an owned role's alias as its whole
    parenthesised part or after a space (``里程碑 (Alpha / Beta / GA)``, ``里程碑 Alpha / Beta / GA``), else
    ``None``. Such a column is not read or written (a guess could write into a human column); it is reported."""
    text = normalize_header(header)
    inner = re.search(r"\(([^()]*)\)$", text)
    for role, names in aliases.items():
        if role not in OWNED_ROLES:
            continue
        for alias in sorted(names, key=len, reverse=True):
            a = normalize_header(alias)
            if a and text != a and ((inner and inner.group(1).strip() == a) or text.endswith(" " + a)):
                return role, alias
    return None


def known_word(field: str, shown: str) -> bool:
    """True when a status or stage cell part (emphasis and blanks as :func:`owned_value` reads them; any other
    field: always) is blank
    or a word kep-sync reads: a kep.yaml status (api/proposal.go), a stage, ``GA``, in any case or width.
    A word it does not know (``可实现``) is never overwritten; marks around a word it knows (``alpha*``,
    :func:`page_reading`) are not part of the word."""
    value = page_reading(field, shown)[0]
    if not value or field not in ("status", "stage"):
        return True
    if field == "status":
        return fold(value) in STATUSES
    return stage_word(value) in STAGES + DEPRECATION_STAGES


def _with_vocabulary(tables: list[list[MatrixRow]]) -> list[MatrixRow]:
    """Every row, given the spelling habits of its columns (same table) over those of the page."""
    shown: list[dict[str, list[tuple[str, str]]]] = []  # per table: column key -> (field, text)
    for rows in tables:
        columns: dict[str, list[tuple[str, str]]] = {}
        for row in rows:
            for field in FIELDS:
                for key, index, pieces in locate_all(row, field):
                    columns.setdefault(key, []).append((field, _unwrap(pieces[index])[1]))
        shown.append(columns)
    page = learn((pair for columns in shown for values in columns.values() for pair in values), BLANKS)
    out: list[MatrixRow] = []
    for rows, columns in zip(tables, shown, strict=True):
        vocab = {key: learn(values, BLANKS).over(page) for key, values in columns.items()}
        out.extend(row._replace(vocab=vocab) for row in rows)
    return out


@functools.lru_cache(maxsize=4096)
def _parts(text: str, role: str) -> tuple[str, ...] | None:
    """Split a cell into ``[part, sep, part, ...]``; ``None`` when the count is wrong for the role or
    a part of a cell the bot owns holds more than one value (rewriting it would delete the rest)."""
    lo, hi = ROLE_PARTS.get(role, (1, 1))
    pieces = tuple(_SEP_RE.split(text)) if hi > 1 and cell_value(text) else (text,)
    if not lo <= (len(pieces) + 1) // 2 <= hi:
        return None
    if role in OWNED_ROLES and not all(_ONE_VALUE_RE.match(p) or not cell_value(p) for p in pieces[::2]):
        return None
    if role in OWNED_ROLES and "~~" in text:  # struck-through history: the cell is kept whole
        return None
    return pieces


def locate(row: MatrixRow, field: str) -> tuple[str, int, list[str]] | None:
    """``(column key, piece index, pieces)`` of the first cell showing ``field``, or ``None``."""
    found = locate_all(row, field)
    return found[0] if found else None


def locate_all(row: MatrixRow, field: str) -> list[tuple[str, int, list[str]]]:
    """``(column key, piece index, pieces)`` of every cell of ``row`` that shows ``field``."""
    found = []
    for role, part in FIELD_CELLS[field]:
        for key, cell in row.cells.items():
            if key != role and not key.startswith(role + "#"):
                continue
            pieces = _parts(cell.text, role)
            if pieces is not None and 2 * part < len(pieces):
                found.append((key, 2 * part, list(pieces)))
    return found


def same_value(field: str, shown: str, value: str) -> bool:
    """True when a cell's text (``shown``) already says ``value`` (kep.yaml's, or the cell text the bot
    would write) in the page's words: status ignoring case, stage with ``GA`` == ``stable`` in any
    case, milestones after normalisation (``1.30`` == ``V1.30`` == ``v1.30``, blanks equal), each
    after :func:`~bot.wiki.vocabulary.fold` (full-width forms) and without emphasis (``**beta**``);
    gates as sets."""
    if field == "feature_gates":
        return cell_gates(cell_value(shown)) == cell_gates(cell_value(value))
    shown, value = page_reading(field, shown)[0], owned_value(value)
    if field == "status":
        return fold(shown) == fold(value)
    if field == "stage":
        return stage_word(shown) == stage_word(value)
    return same_milestone(fold(shown), fold(value))


def disagreements(row: MatrixRow) -> list[tuple[str, list[str]]]:
    """``(field, [texts])`` for each field the row shows in several cells that do not say the same."""
    out = []
    for field in FIELDS:
        shown = row.values(field)
        if any(not same_value(field, shown[0], page_reading(field, other)[0]) for other in shown[1:]):
            out.append((field, [owned_value(v) if field != "feature_gates" else v for v in shown]))
    return out


def spelled(row: MatrixRow, field: str, value: str, key: str | None = None, old: str | None = None) -> str:
    """``value`` (as kep.yaml writes it; ``""`` for none) as the cell ``key`` of ``row`` (default:
    the field's first cell) will show it, unescaped: in the cell's, column's or page's words."""
    if key is None or old is None:
        located = locate(row, field)
        if located is None:
            return value
        key, old = located[0], located[2][located[1]]
    old = _unwrap(old)[1]
    vocab = row.vocab.get(key, Spelling())
    if not value:
        return ""
    if field in ("status", "stage"):
        return spell_word(field, value, old, vocab)
    if field in ("alpha", "beta", "stable"):
        bare = milestone_bareness([old])
        if bare is None:
            bare = milestone_bareness(_unwrap(v)[1] for f in ("alpha", "beta", "stable") for v in row.values(f))
        return spell_milestone(value, bare if bare is not None else bool(vocab.bare))
    return value


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
    """``line`` with the given fields replaced (``{field: value}``), every other byte kept.

    ``value`` is kep.yaml's (``""`` for none) or, for feature gates, the cell text.
    Every cell showing the field is rewritten unless it already says the same
    (:func:`same_value`), each in its own words (:func:`spelled`), escaped for
    a table cell; a composite cell keeps its separators. A column padded to its
    width stays so when the new text fits (:func:`bot.wiki.tables.fill_cell`).
    """
    by_key: dict[str, list[str]] = {}
    for field, value in updates.items():
        for key, index, pieces in locate_all(row, field):
            pieces = by_key.setdefault(key, pieces)
            old = pieces[index]
            if same_value(field, old, value):
                continue
            text = spelled(row, field, value, key, old)
            marks = _unwrap(old)[0] if field != "feature_gates" else ""
            pieces[index] = f"{marks}{escape_cell(text)}{marks[::-1]}" if text else none_text(row, key, line)
            if not old.strip():
                _fill_gap(pieces, index)
            if row.layout.get(key, (None, ""))[0] is not None:
                _realign(pieces, index, old)
    # Replace right-most cells first so earlier spans stay valid.
    for key in sorted(by_key, key=lambda k: row.cells[k].start, reverse=True):
        text = "".join(by_key[key])
        if text != row.cells[key].text:
            width, align = row.layout.get(key, (None, "left"))
            line = fill_cell(line, row.cells[key], text, width, align)
    return line


def written_text(row: MatrixRow, field: str, value: str, line: str) -> str:
    """The text :func:`render_row` gives the first cell of ``row`` (on ``line``) showing ``field`` for ``value``
    (kep.yaml's, ``""`` for none): spelled in the page's words (``GA``, ``1.30``) or its word for none
    (:func:`none_text`); ``value`` itself when no cell shows the field."""
    located = locate(row, field)
    if located is None:
        return value
    key, old = located[0], located[2][located[1]]
    return spelled(row, field, value, key, old) or none_text(row, key, line)


def none_text(row: MatrixRow, key: str, line: str) -> str:
    """What the cell ``key`` of ``row`` (on ``line``) says for "none": the column's (else the page's) own word
    (``-``, ``N/A``, or ``""`` where empty cells mean none), ``-`` when it shows none; ``-`` for an empty word in
    a cell at a row edge with no pipe outside it, which an empty text would drop from the table."""
    blank = row.vocab.get(key, Spelling()).blank
    if blank is None:
        return "-"
    cell = row.cells[key]
    edge = "|" not in line[: cell.lo] or "|" not in line[cell.hi :]
    return "-" if not blank and edge else blank


def _fill_gap(pieces: list[str], index: int) -> None:
    """Space a part just written into an empty slot of a composite cell like the cell spaces its
    separators (``v1.31 /  / -`` and ``v1.31 // -`` become ``v1.31 / v1.33 / -``); a cell written
    without spaces (``v1.31//-``) stays without."""
    space = next((ch for sep in pieces[1::2] for ch in sep if ch.isspace()), None)
    if space is None:
        return
    if index > 0:
        before = pieces[index - 1]
        pieces[index - 1] = before.rstrip() + (before[-1] if before[-1].isspace() else space)
    if index + 1 < len(pieces):
        after = pieces[index + 1]
        pieces[index + 1] = (after[0] if after[0].isspace() else space) + after.lstrip()


def _realign(pieces: list[str], index: int, old: str) -> None:
    """Keep the parts of a composite cell in an aligned column aligned when the page pads them
    (``v1.31 / -     / -``): the spaces before the next separator shrink or grow by the change in
    width, down to one."""
    if index + 1 >= len(pieces):
        return
    sep = pieces[index + 1]
    pad = len(sep) - len(sep.lstrip(" "))
    if pad > 1:
        pad = max(1, pad - (display_width(pieces[index]) - display_width(old)))
        pieces[index + 1] = " " * pad + sep.lstrip(" ")


def owned_value(text: str) -> str:
    """An owned cell part (status, stage, milestone) as a comparable value: :func:`cell_value` of the
    text inside its emphasis (``**beta**``, ``_v1.30_``, ```alpha```; never ``~~x~~``, which is history)."""
    return cell_value(_unwrap(text)[1])


def page_reading(field: str, text: str) -> tuple[str, str]:
    """``(value, why)`` for an owned cell part as the page shows it (status, stage, milestone).

    ``value``: the comparable value (:func:`owned_value`) without marks kep-sync does not
    understand around it (a footnote ``*``, ``¹``, ``†``, ``✅``, a ``:``, an HTML tag such as
    ``<br>``; a milestone's patch number ``.0``), so ``alpha*`` says ``alpha`` and ``v1.35.0``
    says ``v1.35``. ``why``: ``""`` for a plain part; else why kep-sync must not rewrite it (the
    marks would be deleted; a milestone it cannot read would be replaced): ``"has marks
    kep-sync does not understand"``, ``"names a patch release, not a milestone"`` (``v1.35.0``) or
    ``"is not a milestone kep-sync can read"`` (``v1.036``, ``soon``). A word it does not know (``已实现``) is plain.
    """
    inner = unescape_cell(_unwrap(text)[1]).strip()
    if not cell_value(inner):
        return "", ""
    milestone = field in ("alpha", "beta", "stable")
    if milestone and (normalize_milestone(fold(inner)) is not None or is_unset_milestone(fold(inner))):
        return cell_value(inner), ""
    core = _TAG_RE.sub("", inner)
    while core and not _is_word(core[0]):
        core = core[1:]
    while core and not _is_word(core[-1]):
        core = core[:-1]
    patch = _PATCH_RE.match(core) if milestone else None
    if patch and patch.group(0) == inner:
        return cell_value(patch.group(1)), "names a patch release, not a milestone"
    if patch:
        core = patch.group(1)
    if core == inner and _is_word(inner) and not milestone:
        return cell_value(inner), ""
    if core == inner and milestone:
        return cell_value(inner), "is not a milestone kep-sync can read"
    return cell_value(core), "has marks kep-sync does not understand"


def _is_word(text: str) -> bool:
    """True when ``text`` is letters, combining marks, decimal digits and ``.-_`` only (``beta``, ``v1.30``,
    ``已实现``)."""
    return bool(text) and all(
        ch in _WORD_EXTRA or unicodedata.category(ch)[0] in "LM" or unicodedata.category(ch) == "Nd" for ch in text
    )


def _unwrap(text: str) -> tuple[str, str]:
    """``(opening marks, inner text)`` of a part wrapped in emphasis or a code span (``**`beta`**`` ->
    ``("**`", "beta")``); the closing marks are the opening ones reversed."""
    marks, text = "", text.strip()
    while m := _EMPHASIS_RE.match(text):
        marks, text = marks + m.group(1), m.group(2)
    return marks, text


def cell_value(text: str) -> str:
    """A cell part as a comparable value: unescaped, stripped, ``-`` and blanks as ``""``."""
    text = unescape_cell(text).strip()
    return "" if text.casefold() in BLANKS else text
