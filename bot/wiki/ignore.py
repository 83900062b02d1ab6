"""Ignore markers in a page row: ``<!-- kep-sync: ignore -->`` (the whole row) or ``<!-- kep-sync: ignore stable
beta -->`` (named fields). Pure.

A marker may stand anywhere in a row, except inside a code span (there it is text, as GitHub renders it,
not a rule). The diff reads the row with its markers taken out (:func:`strip_markers`), so a marker never
changes how a cell is read; a row that is rewritten gets each marker back where it stood: at the same
offset in its cell when the cell's bytes before it are unchanged, else at the end of the cell's text
(:func:`restore_markers`); a row that is not rewritten keeps its original bytes. Field names:
:data:`IGNORABLE` (``feature-gates`` and ``gates`` read as ``feature_gates``; names are case-insensitive). A
word that names no field is a problem (:func:`marker_problems`) and the marker ignores only the fields it
names: never the whole row.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from bot.model.kep import Problem
from bot.wiki.tables import split_row

#: Fields a marker or a config rule can name; a marker naming no word at all ignores the whole row.
IGNORABLE = ("status", "stage", "alpha", "beta", "stable", "feature_gates", "shipped")
_SPELLINGS = {"feature-gates": "feature_gates", "gates": "feature_gates", "ga": "stable"}
MARKER_RE = re.compile(r" ?<!--\s*kep-sync:\s*ignore([^>]*?)\s*-->", re.IGNORECASE)
#: The unknown words a problem quotes, at most (each cut to 40 characters).
MAX_QUOTED = 5


class Marker(NamedTuple):
    """One marker of a row: its ``text`` as written (without the space before it), the index of the
    ``cell`` it stood in (0-based, as :func:`bot.wiki.tables.split_row` counts), the ``fields`` it names
    (all of :data:`IGNORABLE` when it names no word), ``offset``: where it stood in the row without markers,
    counted from the start of its cell (``Cell.lo``), ``raw``: the text removed (with the space before it),
    and ``unknown``: its words that name no field."""

    text: str
    cell: int
    fields: frozenset[str]
    offset: int = 0
    raw: str = ""
    unknown: tuple[str, ...] = ()


def field_name(word: str) -> str:
    """A field as a marker or a command writes it, as :data:`IGNORABLE` names it; ``""`` when unknown."""
    word = word.strip().casefold()
    word = _SPELLINGS.get(word, word)
    return word if word in IGNORABLE else ""


def marker_words(words: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """``(fields, unknown words)`` of a marker's words (spaces or commas between): every field when it has no
    word; only the known fields (maybe none) when a word names no field."""
    given = [w for w in re.split(r"[\s,]+", words) if w.strip()]
    if not given:
        return frozenset(IGNORABLE), ()
    return frozenset(field_name(w) for w in given) - {""}, tuple(w for w in given if not field_name(w))


def marker_fields(words: str) -> frozenset[str]:
    """The fields named in a marker's words (:func:`marker_words`)."""
    return marker_words(words)[0]


def code_spans(line: str) -> list[tuple[int, int]]:
    """``[(start, end)]`` of the code spans of ``line`` (CommonMark: a run of n backticks up to the next run of
    exactly n; a backslash-escaped backtick outside a span opens none)."""
    spans, i = [], 0
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        if line[i] != "`":
            i += 1
            continue
        j = i
        while j < len(line) and line[j] == "`":
            j += 1
        close = re.compile(rf"(?<!`)`{{{j - i}}}(?!`)").search(line, j)
        if close is None:
            i = j
            continue
        spans.append((i, close.end()))
        i = close.end()
    return spans


def strip_markers(line: str) -> tuple[str, list[Marker]]:
    """``(line without its markers, the markers)``; ``(line, [])`` when it has none. A marker inside a code
    span is text, not a marker."""
    spans = code_spans(line) if "`" in line else []
    found = [m for m in MARKER_RE.finditer(line) if not any(a < m.end() and m.start() < b for a, b in spans)]
    if not found:
        return line, []
    parts, last, at = [], 0, []
    for m in found:
        parts.append(line[last : m.start()])
        at.append(sum(map(len, parts)))
        last = m.end()
    stripped = "".join(parts) + line[last:]
    cells = split_row(stripped)
    markers = []
    for m, q in zip(found, at, strict=True):
        cell = next((i for i, c in enumerate(cells) if q <= c.hi), len(cells) - 1)
        fields, unknown = marker_words(m.group(1))
        markers.append(Marker(m.group().lstrip(" "), cell, fields, q - cells[cell].lo, m.group(), unknown))
    return stripped, markers


def restore_markers(original: str, stripped: str, rendered: str, markers: Iterable[Marker]) -> str:
    """The row to write: ``original`` when the row was not rewritten (``rendered == stripped``), else
    ``rendered`` with each marker back at its offset in its cell when the cell's bytes before it are the same
    in ``stripped`` and ``rendered``, else at the end of that cell's text."""
    markers = list(markers)
    if rendered == stripped or not markers:
        return original if rendered == stripped else rendered
    old, new = split_row(stripped), split_row(rendered)
    placed = []
    for n, m in enumerate(markers):
        was, now = old[min(m.cell, len(old) - 1)], new[min(m.cell, len(new) - 1)]
        if now.lo + m.offset <= now.hi and rendered[now.lo : now.lo + m.offset] == stripped[was.lo : was.lo + m.offset]:
            placed.append((now.lo + m.offset, n, m.raw or m.text))
        else:
            placed.append((now.end, n, (" " if now.text else "") + m.text))
    for pos, _, piece in sorted(placed, reverse=True):  # right-most first, so earlier positions hold
        rendered = rendered[:pos] + piece + rendered[pos:]
    return rendered


def marker_problems(path: str, masked: Masked) -> list[Problem]:
    """A problem for each marker with a word that names no field, naming the page line and the words."""
    out = []
    for i, (_, _, markers) in sorted(masked.items()):
        for m in markers:
            if m.unknown:
                words = ", ".join(repr(w[:40]) for w in m.unknown[:MAX_QUOTED])
                kept = (
                    f"ignores only {', '.join(f for f in IGNORABLE if f in m.fields)}"
                    if m.fields
                    else "ignores nothing"
                )
                out.append(
                    Problem(
                        path,
                        f"line {i + 1}",
                        f"ignore marker: {words} names no field (one of {', '.join(IGNORABLE)}); the marker {kept}",
                    )
                )
    return out


def ignored_fields(markers: Iterable[Marker]) -> frozenset[str]:
    """Every field the markers of one row name."""
    return frozenset().union(*(m.fields for m in markers))


def marker_text(fields: Iterable[str]) -> str:
    """The marker for ``fields`` (in :data:`IGNORABLE` order); the whole-row marker when ``fields`` is empty or
    names every field."""
    chosen = [f for f in IGNORABLE if f in set(fields)]
    words = "" if not chosen or len(chosen) == len(IGNORABLE) else " " + " ".join(chosen)
    return f"<!-- kep-sync: ignore{words} -->"


def add_marker(line: str, cell: int, fields: Iterable[str]) -> str:
    """``line`` with the marker for ``fields`` appended to the text of cell ``cell`` (a row already ignoring
    those fields is returned as is)."""
    fields = frozenset(fields) or frozenset(IGNORABLE)
    if fields <= ignored_fields(strip_markers(line)[1]):
        return line
    target = split_row(line)[cell]
    return line[: target.end] + (" " if target.text else "") + marker_text(fields) + line[target.end :]


#: ``{0-based line: (original line, line without markers, markers)}`` of a page's lines with markers.
Masked = dict[int, tuple[str, str, list[Marker]]]


def mask_page(text: str) -> tuple[str, Masked]:
    """``(text with every marker taken out, what was taken)``: the text the matrix parser and the diff read."""
    lines, masked = text.split("\n"), {}
    for i, line in enumerate(lines):
        if "kep-sync" in line:
            stripped, markers = strip_markers(line)
            if markers:
                masked[i], lines[i] = (line, stripped, markers), stripped
    return "\n".join(lines), masked


def unmask(lines: list[str], masked: Masked) -> list[str]:
    """``lines`` (the diff's output for a masked page) with the markers back (:func:`restore_markers`)."""
    out = list(lines)
    for i, (original, stripped, markers) in masked.items():
        out[i] = restore_markers(original, stripped, out[i], markers)
    return out


def row_ignores(masked: Masked) -> dict[int, frozenset[str]]:
    """``{0-based line: fields}`` the markers of each masked line name."""
    return {i: ignored_fields(markers) for i, (_, _, markers) in masked.items()}
