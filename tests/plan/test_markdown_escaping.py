"""The escaping family of bot/plan/changelog/markdown.py, on the inputs each rule is for (the property over
generated text is tests/harness/test_inert_markup.py)."""

from __future__ import annotations

import pytest

from bot.plan.changelog.markdown import code, code_block, html_text, inline, line_start, table_cell


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Promoted the `HundredGate` feature gate to beta", "Promoted the `HundredGate` feature gate to beta"),
        ("snake_case and a & b", "snake_case and a &amp; b"),
        ("G \\`@team\\`", "G \\\\\\``@team`\\\\\\`"),  # an escaped backtick opens no code span
        ("`a` #12 @x", "`a` `#12` `@x`"),
        ("see http://x.example/a).", "see `http://x.example/a`)."),
        ("mail a@b.io, KEP cell '#12x'", "mail `a@b.io`, KEP cell '#12x'"),
        ("#12http://x", "`#12`\u200b`http://x`"),  # a code span ends GitHub's text run: #12 is read alone
        ("*b* _e_ ~s~ $m$ [l](u) ![i](s)", "\\*b\\* \\_e\\_ \\~s\\~ \\$m\\$ \\[l\\](u) !\\[i\\](s)"),
        ("a\\", "a\\\\"),
        ("C:\\dir", "C:\\dir"),
        ("`x | y` | z", "`x \\| y` \\| z"),
        ("<!-- kep-sync:end -->", "&lt;!-\u200b- kep-sync:end -\u200b-&gt;"),
        ("a\r\nb\u202ec", "a  b c"),
    ],
)
def test_inline_shows_foreign_text_as_written_and_inert(raw, expected):
    assert inline(raw) == expected


def test_table_cell_strips_and_line_start_escapes_block_markers():
    assert table_cell("  x  ") == "x" and table_cell(" \r ") == "-"
    assert [line_start(t) for t in ("- x", "", "# h", "1. y", "+", "a - b")] == [
        "\\- x",
        "\\-",
        "\\# h",
        "1\\. y",
        "\\+",
        "a - b",
    ]


def test_code_spans_and_blocks_hold_any_backticks():
    assert code("date: 2026-01-01") == "`date: 2026-01-01`"
    assert code("a``b") == "```a``b```" and code("`x") == "`` `x ``" and code(" a ") == "`  a  `"
    assert code("a|b", cell=True) == "`a\\|b`" and code("<!--") == "`<!-\u200b-`"
    assert code_block("x\n````\ny") == "`````\nx\n````\ny\n`````"


def test_html_text_is_for_raw_html():
    assert html_text("Coverage (@x <b> #3)") == "Coverage (<code>@x</code> &lt;b&gt; <code>#3</code>)"
