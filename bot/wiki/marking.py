"""Add an ignore marker to the rows of one KEP in a page (the ``/kep-sync ignore`` command). Pure.

The marker (:func:`bot.wiki.ignore.marker_text`) goes at the end of the row's KEP cell; every other byte of
the page is kept. A row that already ignores those fields is left as is.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from bot.wiki.ignore import add_marker, mask_page
from bot.wiki.matrix import parse_page
from bot.wiki.tables import split_row


def mark_kep(
    path: str, text: str, aliases: Mapping[str, Sequence[str]], kep: int, fields: Collection[str]
) -> tuple[str, list[int]]:
    """``(text with the marker for fields added to each matrix row of KEP kep, 0-based lines of those rows)``.

    ``fields``: names of :data:`bot.wiki.ignore.IGNORABLE` (empty: the whole row); ``aliases``: the column
    names (:meth:`bot.config.Config.aliases`). Lines ``[]`` when no row of the page is that KEP's.
    """
    masked, _ = mask_page(text)
    masked_lines, lines = masked.split("\n"), text.split("\n")
    found = []
    for row in parse_page(path, masked, aliases).rows:
        if row.number != kep:
            continue
        starts = [c.lo for c in split_row(masked_lines[row.line])]
        lines[row.line] = add_marker(lines[row.line], starts.index(row.cells["kep"].lo), fields)
        found.append(row.line)
    return "\n".join(lines), found
