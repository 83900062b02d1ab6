"""Ignore markers in a page row: ``<!-- kep-sync: ignore -->`` (the whole row) or ``<!-- kep-sync: ignore stable
beta -->`` (named fields). Pure.

A marker may stand anywhere in a row. The diff reads the row with its markers
taken out (:func:`strip_markers`), so a marker never changes how a cell is
read; a row that is rewritten gets each marker back at the end of the cell it
stood in (:func:`restore_markers`), and a row that is not rewritten keeps its
original bytes. Field names: :data:`IGNORABLE` (``feature-gates`` and ``gates``
read as ``feature_gates``; names are case-insensitive).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from bot.wiki.tables import split_row

#: Fields a marker or a config rule can name; a marker naming none of them ignores the whole row.
IGNORABLE = ("status", "stage", "alpha", "beta", "stable", "feature_gates")
_SPELLINGS = {"feature-gates": "feature_gates", "gates": "feature_gates", "ga": "stable"}
MARKER_RE = re.compile(r" ?<!--\s*kep-sync:\s*ignore\b([^>]*?)\s*-->", re.IGNORECASE)


class Marker(NamedTuple):
    """One marker of a row: its ``text`` as written (without the space before it), the index of the
    ``cell`` it stood in (0-based, as :func:`bot.wiki.tables.split_row` counts) and the ``fields`` it
    names (all of :data:`IGNORABLE` when it names none)."""

    text: str
    cell: int
    fields: frozenset[str]


def field_name(word: str) -> str:
    """A field as a marker or a command writes it, as :data:`IGNORABLE` names it; ``""`` when unknown."""
    word = word.strip().casefold()
    word = _SPELLINGS.get(word, word)
    return word if word in IGNORABLE else ""


def marker_fields(words: str) -> frozenset[str]:
    """The fields named in a marker's words (spaces or commas between); all of them when none is named."""
    named = {field_name(w) for w in re.split(r"[\s,]+", words) if w.strip()}
    named.discard("")
    return frozenset(named) if named else frozenset(IGNORABLE)


def strip_markers(line: str) -> tuple[str, list[Marker]]:
    """``(line without its markers, the markers)``; ``(line, [])`` when it has none."""
    found = list(MARKER_RE.finditer(line))
    if not found:
        return line, []
    bounds = [c.hi for c in split_row(line)]
    markers = [Marker(m.group().lstrip(" "), next((i for i, hi in enumerate(bounds) if m.start() < hi),
                                                  len(bounds) - 1), marker_fields(m.group(1))) for m in found]
    return MARKER_RE.sub("", line), markers


def restore_markers(original: str, stripped: str, rendered: str, markers: Iterable[Marker]) -> str:
    """The row to write: ``original`` when the row was not rewritten (``rendered == stripped``), else
    ``rendered`` with each marker put back at the end of the text of the cell it stood in."""
    markers = list(markers)
    if rendered == stripped or not markers:
        return original if rendered == stripped else rendered
    for marker in reversed(markers):  # right-most first, so earlier cells keep their spans
        cells = split_row(rendered)
        cell = cells[min(marker.cell, len(cells) - 1)]
        rendered = rendered[:cell.end] + (" " if cell.text else "") + marker.text + rendered[cell.end:]
    return rendered


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
    return line[:target.end] + (" " if target.text else "") + marker_text(fields) + line[target.end:]


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
