"""Which column of a table names KEPs, judged by its cells as a person reading the page would: for ``kep-sync init``.

Pure. A table is a KEP table when its header names the KEP column (``columns.kep``, ``KEP`` by default:
kep-sync reads such a table whatever its cells say), or when most cells of one column name KEPs
(:func:`bot.wiki.kepnames.kep_name`; KEPs that exist, when ``exists`` can tell). One cell kep-sync cannot
read never drops a table: its row is listed as left as is. A column is never taken for KEPs when:

- its header is for something else: a date, a version or release, a pull request or commit
  (:data:`NOT_KEP_WORDS`: ``Date``, ``Version``, ``PR``);
- its header gives the column another role (``Status``, ``Alpha``: :mod:`bot.wiki.headers`);
- its cells are row numbers (``1``, ``2``, ``3`` ...);
- its cells are bare numbers (``4671``, ``#4671``) under a header that does not name KEPs
  (:data:`KEP_HEADERS`), unless upstream (``exists``) has most of those KEPs.

Dates, versions, ``kubernetes/kubernetes#123`` and pull request links never name a KEP, so a column of
them is never a KEP column.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from bot.wiki.kepnames import KepName, kep_name
from bot.wiki.matrix import cell_value, normalize_header

#: Headers of a column that names KEPs by its cells (compared as :func:`bot.wiki.matrix.normalize_header` does);
#: any header with the word ``KEP`` counts too.
KEP_HEADERS = frozenset(
    normalize_header(h)
    for h in (
        "#",
        "No.",
        "Number",
        "Issue",
        "Issue #",
        "Tracking issue",
        "Enhancement",
        "Enhancement issue",
        "Enhancements issue",
    )
)
#: Words of a header naming what is never a KEP -> what the column holds: dates, versions and releases, pull
#: requests and commits.
NOT_KEP_WORDS = {
    **dict.fromkeys(("date", "dates", "day", "when", "time", "updated", "created", "deadline", "meeting"), "dates"),
    **dict.fromkeys(("version", "versions"), "versions"),
    **dict.fromkeys(("release", "releases", "milestone", "milestones"), "releases"),
    **dict.fromkeys(("pr", "prs", "pull"), "pull requests"),
    **dict.fromkeys(("commit", "commits", "sha"), "commits"),
}


class LeftRow(NamedTuple):
    """A body row of a KEP table that kep-sync leaves as is: its ``row`` (0-based among the body rows), the KEP
    ``cell`` text and ``why`` (``"names no KEP"``, ``"names no KEP upstream"``, ``"has 3 cells, header has 4"``)."""

    row: int
    cell: str
    why: str


class KepColumn(NamedTuple):
    """What :func:`find_kep_column` found: the KEP ``column``'s index (``None``: not a KEP table), how it was
    found (``by``: ``"header"``, ``"cells"``, ``""``), ``readable`` of ``total`` body rows whose KEP cell names a
    KEP (upstream too, when checked), the ``left`` rows, for a table left, ``why``, and the ``short`` rows
    (0-based among the body rows) that have fewer cells than the header: GitHub shows them padded with empty
    cells, and so does kep-sync read them (counted in ``readable`` when their KEP cell names a KEP)."""

    column: int | None
    by: str
    readable: int
    total: int
    left: tuple[LeftRow, ...]
    why: str
    short: tuple[int, ...] = ()


class _Candidate(NamedTuple):
    column: int
    readable: int
    named: list[KepName | None]
    why: str


def header_names_keps(header: str) -> bool:
    """True when a header names a column of KEPs: one of :data:`KEP_HEADERS`, or any header with the word ``KEP``."""
    text = normalize_header(header)
    return text in KEP_HEADERS or "kep" in re.split(r"[^a-z0-9]+", text)


def headed_for_other(header: str) -> str:
    """What a header says its column holds when that is never a KEP (:data:`NOT_KEP_WORDS`: ``dates`` for
    ``Meeting date``, ``pull requests`` for ``PR``), else ``""``; a header naming KEPs (:func:`header_names_keps`)
    has none."""
    if header_names_keps(header):
        return ""
    words = re.split(r"[^a-z0-9]+", normalize_header(header))
    return next((NOT_KEP_WORDS[w] for w in words if w in NOT_KEP_WORDS), "")


def find_kep_column(
    header: Sequence[str],
    body: Sequence[Sequence[str]],
    roles: Mapping[int, str],
    kep_aliases: Sequence[str],
    exists: Callable[[int], bool] | None = None,
) -> KepColumn:
    """The KEP column of a table with header texts ``header`` and body rows ``body`` (cell texts).

    ``roles``: column index -> role its header gives (never a KEP column, except role ``kep``);
    ``kep_aliases``: the headers that name the KEP column (``columns.kep``); ``exists``: KEP number -> whether
    upstream has it (``None``: no source at hand). See the module doc for the rules.
    """
    wanted = {normalize_header(a) for a in kep_aliases}
    by_header = next(
        (i for i, h in enumerate(header) if normalize_header(h) in wanted or roles.get(i) == "kep"),
        None,
    )
    if by_header is not None:
        return _verdict(header, body, by_header, "header", exists)
    candidates = [_judge(header, body, i, exists) for i in range(len(header)) if i not in roles]
    taken = [c for c in candidates if not c.why]
    if taken:
        best = max(taken, key=lambda c: (c.readable, -c.column))
        return _verdict(header, body, best.column, "cells", exists)
    near = [c for c in candidates if c.readable]  # most cells read as KEPs, yet not taken: say why
    formed = [c for c in candidates if any(n is not None for n in c.named) and "is headed for" not in c.why]
    other = [c for c in candidates if "is headed for" in c.why]
    why = (near or formed or other or [_Candidate(0, 0, [], "no column names KEPs")])[0].why
    return KepColumn(None, "", 0, len(body), (), why)


def _cells(body: Sequence[Sequence[str]], index: int) -> list[str]:
    return [row[index] if index < len(row) else "" for row in body]


def _judge(
    header: Sequence[str], body: Sequence[Sequence[str]], index: int, exists: Callable[[int], bool] | None
) -> _Candidate:
    """Whether column ``index`` names KEPs by its cells; ``why`` is ``""`` when it does, else why not."""
    title = header[index]
    other = headed_for_other(title)
    filled = [c for c in _cells(body, index) if cell_value(c)]
    named = [kep_name(c) for c in filled]
    formed = [n for n in named if n is not None]
    if other:
        return _Candidate(index, 0, named, f"{title!r} is headed for {other}, not KEPs")
    numbers = [n.number for n in formed]
    if (
        formed
        and all(n.bare for n in formed)
        and numbers[0] in (0, 1)
        and numbers == list(range(numbers[0], numbers[0] + len(formed)))
    ):
        return _Candidate(index, len(formed), named, f"{title!r} holds row numbers")
    found = [n for n in formed if exists is None or exists(n.number)]
    if not filled or 2 * len(found) <= len(filled):
        upstream = " upstream" if exists is not None else ""
        return _Candidate(
            index, len(found), named, f"{len(found)} of {len(filled)} cells under {title!r} name a KEP{upstream}"
        )
    if all(n.bare for n in found) and not header_names_keps(title) and exists is None:
        return _Candidate(
            index,
            len(found),
            named,
            f"{title!r} holds bare numbers: taken as KEPs only under a header naming them (KEP, KEP #, #) "
            "or with --enhancements to check them upstream",
        )
    return _Candidate(index, len(found), named, "")


def _verdict(
    header: Sequence[str], body: Sequence[Sequence[str]], index: int, by: str, exists: Callable[[int], bool] | None
) -> KepColumn:
    left = []
    short = []
    readable = 0
    for i, row in enumerate(body):
        cell = row[index] if index < len(row) else ""
        name = kep_name(cell)
        if len(row) < len(header):
            short.append(i)
        if len(row) > len(header):
            left.append(LeftRow(i, cell, f"has {len(row)} cells, header has {len(header)}"))
        elif name is None:
            left.append(LeftRow(i, cell, "names no KEP"))
        elif exists is not None and not exists(name.number):
            left.append(LeftRow(i, cell, "names no KEP upstream"))
        else:
            readable += 1
    return KepColumn(index, by, readable, len(body), tuple(left), "", tuple(short))
