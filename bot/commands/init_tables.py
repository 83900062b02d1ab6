"""The tables ``kep-sync init`` looks at: which it takes as KEP tables and why, their columns' roles, and
the check that kep-sync, run with the config init writes, reads every page as init did.

A table is taken when its header names the KEP column or most cells of one column name KEPs
(:func:`bot.wiki.kepcolumn.find_kep_column`; with an upstream snapshot, KEPs that exist). Its other
columns get roles by header: a default alias (:data:`bot.wiki.headers.DEFAULT_ALIASES`), a header people
write for the role (:data:`bot.wiki.headers.RECOGNISED_ALIASES`: ``Current status``, ``Maturity``,
``Alpha in``), or a header that plainly names one (:func:`guess_role`: ``里程碑 (Alpha / Beta / GA)``,
``GA release``). Every header that is not a default is written into ``columns``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from bot.model.snapshot import Snapshot, resolve
from bot.wiki.frontmatter import block_end
from bot.wiki.headers import DEFAULT_ALIASES, RECOGNISED_ALIASES
from bot.wiki.kepcolumn import KepColumn, find_kep_column, header_names_keps
from bot.wiki.matrix import OWNED_ROLES, column_keys, lookalike_column, normalize_header, parse_page, same_value
from bot.wiki.sections import find_headings, heading_above
from bot.wiki.tables import find_tables, header_row, split_row

#: Words around a role's name in a header that do not change its meaning (``GA release``, ``Beta milestone``).
FILLER_WORDS = frozenset(
    {
        "release",
        "releases",
        "milestone",
        "milestones",
        "version",
        "versions",
        "target",
        "targeted",
        "since",
        "in",
        "k8s",
        "kubernetes",
    }
)
#: Roles :func:`guess_role` may give a header (never ``kep``: that column is found by its cells).
GUESSED_ROLES = OWNED_ROLES + ("feature_gates",)
#: Fields whose cells init compares with kep.yaml when a source is at hand.
CHECKED_FIELDS = ("status", "stage", "alpha", "beta", "stable")


class Column(NamedTuple):
    """One header cell of a KEP table: its ``text``, its ``role`` (``""``: not synced) and ``how`` the role was
    given: ``"default"`` (a default alias), ``"recognised"`` (:data:`bot.wiki.headers.RECOGNISED_ALIASES`),
    ``"guessed"`` (:func:`guess_role`), ``"cells"`` (the KEP column found by its cells), ``""`` for none."""

    text: str
    role: str
    how: str

    @property
    def written(self) -> bool:
        """True when the header goes into the config's ``columns`` (the defaults do not name it)."""
        return self.how in ("recognised", "guessed", "cells")


class FoundTable(NamedTuple):
    """A table init looked at: ``page`` (relative to the wiki), 1-based header ``line``, the ``heading`` above it,
    its ``header`` texts, its ``columns`` (``None``: not a KEP table, left as is), the ``kep`` column verdict,
    the 1-based ``lines`` of its body rows and, with a source, ``agree``: per field, ``(cells that say what
    kep.yaml says, cells)``."""

    page: str
    line: int
    heading: str
    header: tuple[str, ...]
    columns: tuple[Column, ...] | None
    kep: KepColumn
    lines: tuple[int, ...]
    agree: tuple[tuple[str, int, int], ...] = ()

    @property
    def taken(self) -> bool:
        """True for a KEP table (kep-sync syncs its rows)."""
        return self.columns is not None

    @property
    def rows(self) -> int:
        """Body rows whose KEP cell names a KEP (upstream too, when checked)."""
        return self.kep.readable


def guess_role(header: str, aliases: Mapping[str, Sequence[str]] = DEFAULT_ALIASES) -> str:
    """The role a header that no alias names plainly has, else ``""``: its parenthesised part or last words
    are an alias of an owned role (:func:`bot.wiki.matrix.lookalike_column`: ``里程碑 (Alpha / Beta / GA)``),
    or it is such an alias with :data:`FILLER_WORDS` around it (``GA release``, ``Alpha milestone``)."""
    like = lookalike_column(header, aliases)
    if like:
        return like[0]
    words = [w for w in normalize_header(header).split(" ") if w not in FILLER_WORDS]
    bare = " ".join(words)
    for role in GUESSED_ROLES:
        if bare and any(normalize_header(a) == bare for a in aliases.get(role, ())):
            return role
    return ""


def table_columns(
    header: Sequence[str], body: Sequence[Sequence[str]], upstream: Snapshot | None = None
) -> tuple[tuple[Column, ...] | None, KepColumn]:
    """``(columns, KEP column verdict)`` of a table with header texts ``header`` and body rows ``body`` (cell
    texts); ``columns`` is ``None`` when it is no KEP table (:func:`bot.wiki.kepcolumn.find_kep_column`, KEPs
    checked against ``upstream`` when given). A role already held by a column of this table is not given again."""
    roles: dict[int, tuple[str, str]] = {}
    for aliases, how in ((DEFAULT_ALIASES, "default"), (RECOGNISED_ALIASES, "recognised")):
        for key, index in column_keys(header, aliases).items():
            roles.setdefault(index, (key.split("#")[0], how))
    exists = (lambda n: n in upstream.keps) if upstream is not None else None
    kep = find_kep_column(header, body, {i: r for i, (r, _) in roles.items()}, DEFAULT_ALIASES["kep"], exists)
    if kep.column is None:
        return None, kep
    if kep.column not in roles:
        roles[kep.column] = ("kep", "cells")
    taken = {role for role, _ in roles.values()}
    for index, text in enumerate(header):
        role = "" if index in roles else guess_role(text)
        if role and role not in taken:
            roles[index] = (role, "guessed")
            taken.add(role)
    return tuple(Column(text, *roles.get(i, ("", ""))) for i, text in enumerate(header)), kep


def page_tables(page: str, text: str, upstream: Snapshot | None = None) -> list[FoundTable]:
    """Every table of one page (``text`` decoded), in page order, taken or not (:func:`table_columns`); with
    ``upstream``, each taken table's cells are compared with kep.yaml (:attr:`FoundTable.agree`)."""
    lines = text.split("\n")
    end = block_end(lines)
    headings = [h for h in find_headings(text) if end is None or h.line > end]  # not the front matter's lines
    found = []
    for table in find_tables(text):
        header = tuple(c.text for c in header_row(lines, table))
        body = [[c.text for c in split_row(lines[i])] for i in table.body]
        columns, kep = table_columns(header, body, upstream)
        where = FoundTable(
            page,
            table.header + 1,
            heading_above(headings, table.header),
            header,
            columns,
            kep,
            tuple(i + 1 for i in table.body),
        )
        if columns is not None and upstream is not None:
            where = where._replace(agree=agreement(where, text, upstream))
        found.append(where)
    return found


def agreement(table: FoundTable, text: str, upstream: Snapshot) -> tuple[tuple[str, int, int], ...]:
    """Per field of :data:`CHECKED_FIELDS` the table shows, ``(field, cells saying what kep.yaml says, cells)``
    over the rows whose KEP is one kep.yaml upstream: how far the page is in step, so a column given the wrong
    role stands out (its cells almost never agree)."""
    aliases: dict[str, list[str]] = {}
    for c in table.columns or ():
        if c.role:
            aliases.setdefault(c.role, []).append(c.text)
    rows = [r for r in parse_page(table.page, text, aliases).rows if r.line + 1 in table.lines]
    counts: dict[str, list[int]] = {}
    for row in rows:
        keps = resolve(upstream, row.number, row.slug)
        if len(keps) != 1:
            continue
        kep = keps[0]
        for field in CHECKED_FIELDS:
            shown = row.values(field)
            if not shown:
                continue
            expected = kep.status if field == "status" else kep.stage if field == "stage" else kep.milestone(field)
            tally = counts.setdefault(field, [0, 0])
            tally[0] += all(same_value(field, s, expected) for s in shown)
            tally[1] += 1
    return tuple((f, counts[f][0], counts[f][1]) for f in CHECKED_FIELDS if f in counts)


def column_aliases(tables: Iterable[FoundTable]) -> dict[str, list[str]]:
    """``columns`` for the config: for each role given to a header the defaults do not name, the default
    aliases plus those headers (as written), in role order; roles without one are left out (the defaults
    apply)."""
    extra: dict[str, list[str]] = {}
    for table in tables:
        for column in table.columns or ():
            if column.written and column.text not in extra.setdefault(column.role, []):
                extra[column.role].append(column.text)
    return {role: list(DEFAULT_ALIASES[role]) + extra[role] for role in DEFAULT_ALIASES if extra.get(role)}


def settle(looked: Sequence[FoundTable]) -> list[FoundTable]:
    """``looked`` (every table of the pages, in order) with each KEP table whose KEP column was found by its cells
    left as is when its header, one that does not name KEPs (:func:`bot.wiki.kepcolumn.header_names_keps`), is also
    another column's on a page kep-sync would read (``columns.kep`` names a header on every page: a meeting table's
    ``Notes`` of KEP links would key the rows of a KEP table with a ``Notes`` column by their notes); repeated
    until no such header is left. A header naming KEPs stays (:func:`misread` names the other table as a check)."""
    out = list(looked)
    while True:
        pages = {t.page for t in out if t.taken}
        by_cells = {
            normalize_header(t.header[t.kep.column]): t
            for t in out
            if t.taken
            and t.kep.column is not None
            and (t.columns or ())[t.kep.column].how == "cells"
            and not header_names_keps(t.header[t.kep.column])
        }
        clash: dict[str, FoundTable] = {}
        for t in out:
            for i, h in enumerate(t.header):
                name = normalize_header(h)
                if t.page in pages and name in by_cells and not (t.taken and t.kep.column == i):
                    clash.setdefault(name, t)
        if not clash:
            return out
        for i, t in enumerate(out):
            title = t.header[t.kep.column] if t.taken and t.kep.column is not None else ""
            name = normalize_header(title) if title else ""
            if name in clash and by_cells.get(name) is not None:
                other = clash[name]
                why = (
                    f"most cells under {title!r} name KEPs, but {other.page} line {other.line} has a {title!r} "
                    "column of another kind, which kep-sync would then read as KEPs too; head this table's KEP "
                    "column KEP to have it synced"
                )
                out[i] = t._replace(columns=None, kep=t.kep._replace(column=None, by="", readable=0, left=(), why=why))


def misread(tables: Sequence[FoundTable], aliases: Mapping[str, Sequence[str]]) -> list[str]:
    """Where kep-sync, with the config's ``aliases`` (``columns``), would read a table on a configured page other
    than init did: a table left whose header names the KEP column after all (a ``#`` column of row numbers
    beside a KEP table headed ``#``), or a KEP table whose rows it would key by another column. ``[]`` when none."""
    pages = {t.page for t in tables if t.taken}
    out = []
    for t in tables:
        if t.page not in pages:
            continue
        sync_kep = column_keys(t.header, aliases).get("kep")
        mine = t.kep.column if t.taken else None
        if sync_kep == mine:
            continue
        where = f"{t.page} line {t.line}"
        column = "none" if sync_kep is None else repr(t.header[sync_kep])
        if mine is None:
            out.append(
                f"{where}: left as is by init, but its column {column} has a KEP column's name, so "
                "kep-sync reads it as a KEP table: rename that header, or one of columns.kep"
            )
        else:
            out.append(f"{where}: kep-sync would key its rows by {column}, not {t.header[mine]!r}: check columns.kep")
    return out


def describe(table: FoundTable) -> list[str]:
    """Lines naming one table and what init made of it: ``page line N (under "Heading"): R of T KEP cells
    readable, taken`` with each row left as is, then ``'Header' -> role`` per column (``(guessed)`` when
    guessed, ``(its cells)`` for a KEP column found by its cells, ``not synced`` without a role) and how far
    its cells agree with kep.yaml; or, for a table left, why."""
    where = f"{table.page} line {table.line}" + (f" (under {table.heading!r})" if table.heading else "")
    kep = table.kep
    if not table.taken:
        return [f"{where}: left as is: {kep.why}"]
    left = "".join(f"; line {table.lines[r.row]} {r.cell!r} left as is ({r.why})" for r in kep.left[:5]) + (
        f"; {len(kep.left) - 5} more left as is" if len(kep.left) > 5 else ""
    )
    out = [f"{where}: {kep.readable} of {kep.total} KEP cells readable, taken{left}{_short(table)}"]
    marks = {"guessed": " (guessed)", "cells": " (its cells)"}
    for c in table.columns or ():
        out.append(f"  {c.text!r} -> {c.role + marks.get(c.how, '') if c.role else 'not synced'}")
    if table.agree:
        out.append(
            "  in step with kep.yaml now: "
            + ", ".join(f"{field} {same} of {shown}" for field, same, shown in table.agree)
            + (
                " (a dry run proposes the rest)"
                if any(same < shown for _, same, shown in table.agree)
                else " (nothing left to propose)"
            )
        )
    return out


def _short(table: FoundTable) -> str:
    """``"; 1 row has fewer cells than the header (line 16): ..."`` for a table's :attr:`KepColumn.short` rows
    (up to 5 lines named), else ``""``."""
    short = table.kep.short
    if not short:
        return ""
    named = ", ".join(str(table.lines[r]) for r in short[:5]) + (
        f" and {len(short) - 5} more" if len(short) > 5 else ""
    )
    rows = "1 row has" if len(short) == 1 else f"{len(short)} rows have"
    return (
        f"; {rows} fewer cells than the header (line{'s' if len(short) > 1 else ''} {named}): read as GitHub shows "
        "them, padded with empty cells; kep-sync writes no cell beyond a row's end and leaves such a row as is "
        "(add the missing `| |` cells to let it write there)"
    )
