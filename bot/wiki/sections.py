"""Headings of a page, so a table can be named by the heading above it ("P0 Landmark KEPs").

Pure. Headings are located by markdown-it-py's line map like the tables in
:mod:`bot.wiki.tables`, so a ``#`` line inside a code fence is not a heading.
ATX (``## Title``) and setext (``Title`` over ``===``) headings: CommonMark
https://spec.commonmark.org/0.31.2/#atx-headings
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark").disable("inline")


class Heading(NamedTuple):
    """A heading: 0-based ``line`` index, ``level`` (1-6) and its ``text`` (inline markup kept as written)."""

    line: int
    level: int
    text: str


def find_headings(text: str) -> list[Heading]:
    """Every heading of ``text`` (a whole page) in page order; ``\\r`` and a BOM are ignored as in
    :func:`bot.wiki.tables.find_tables`, so line indices agree with ``text.split("\\n")``."""
    tokens = _MD.parse(text.replace("\r", "").removeprefix("\ufeff"))
    out: list[Heading] = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.map is not None:
            inline = tokens[i + 1].content if i + 1 < len(tokens) else ""
            out.append(Heading(tok.map[0], int(tok.tag[1:]), inline.strip()))
    return out


def code_lines(text: str) -> frozenset[int]:
    """0-based indices of the lines of ``text`` inside code: fenced blocks (fence lines included) and indented
    code blocks, nested ones too, from markdown-it-py's token map; same line numbering as :func:`find_headings`."""
    tokens = _MD.parse(text.replace("\r", "").removeprefix("\ufeff"))
    return frozenset(
        i for tok in tokens if tok.type in ("fence", "code_block") and tok.map is not None for i in range(*tok.map)
    )


def heading_above(headings: Sequence[Heading], line: int) -> str:
    """Text of the nearest heading before ``line`` (0-based), ``""`` when there is none."""
    above = [h for h in headings if h.line < line]
    return above[-1].text if above else ""


def same_heading(a: str, b: str) -> bool:
    """True when two heading texts name the same section: case, ``*``/``_`` emphasis and spacing ignored."""
    return _norm(a) == _norm(b)


def _norm(text: str) -> str:
    return " ".join(text.replace("*", "").replace("_", " ").strip("# ").split()).casefold()
