"""bot.wiki.tables keeps only the table tokens while markdown-it-py parses a page: the tables found are exactly
those of the full token stream, whatever blocks surround them (lists, quotes, fences, HTML, indented code)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.wiki.tables import _MD, _table_tokens

LINES = [
    "| KEP | Stage |",
    "|---|---|",
    "| 4671 | beta |",
    "4671 | alpha",
    "",
    "- item",
    "1. item",
    "  | a | b |",
    "  |---|---|",
    "> | q | r |",
    "> |---|---|",
    "```",
    "    | code |",
    "<div>",
    "</div>",
    "# Title",
    "text",
    "---",
    "| x |",
    "|:-:|",
    "\t| t |",
]


def full_stream(src: str) -> list[tuple[str, list[int] | None]]:
    return [(t.type, t.map) for t in _MD.parse(src) if t.type in ("table_open", "tr_open", "table_close")]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=30))
def test_kept_tokens_are_the_table_tokens_of_the_full_stream(lines):
    src = "\n".join(lines)
    assert [(t.type, t.map) for t in _table_tokens(src)] == full_stream(src)


def test_only_table_tokens_are_kept():
    src = "- x\n- y\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\ntext\n"
    assert [(t.type, t.map) for t in _table_tokens(src)] == [
        ("table_open", [3, 6]),
        ("tr_open", [3, 4]),
        ("tr_open", [5, 6]),
        ("table_close", None),
    ]
