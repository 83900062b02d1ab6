"""The tracking stage never duplicates, breaks or misfiles a row: a KEP whose row kep-sync cannot use is
still on the matrix, every new row reads back as its KEP's row, a production table gets no provisional
row, new rows end as the table's lines do, and a coverage page with no group says coverage was not
checked (bot/wiki/matrix.py, bot/plan/tracking/)."""

from __future__ import annotations

import pytest

from bot.model.kep import Problem
from bot.plan.tracking import Options, render, track
from bot.plan.tracking.coverage import check_coverage, parse_groups
from bot.plan.tracking.rows import add_rows
from bot.wiki.kepnames import name_in_cell
from bot.wiki.matrix import DEFAULT_ALIASES, ProblemRow, parse_page
from tests.trackingutil import kep, snap

PAGE = """## Main

| KEP | Status | Alpha / Beta / GA | Notes |
|---|---|---|---|
| 100-base | implementable / alpha | v1.37 / - / - | human |
| 101-note | implementable (since v1.35) / alpha | v1.37 / - / - | a status with a human note |
| 102-extra | implementable / alpha | v1.37 / - / - | a \\| b | an extra cell |
| 103-evil\\|x | implementable / alpha | v1.37 / - / - | a cell kep-sync cannot read |
| ~~104-moved~~ (see 105) | implementable / alpha | v1.37 / - / - | struck out |
| see below | implementable / alpha | v1.37 / - / - | no KEP |
"""
KEPS = [
    kep(n, slug, alpha="v1.37")
    for n, slug in ((100, "base"), (101, "note"), (102, "extra"), (103, "evil|x"), (104, "moved"), (200, "new-one"))
]
COVERAGE = "| Design group | 代表 KEP |\n|---|---|\n| G | 101, 102, 103, 104, 300 |\n"


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ("4671-x", (4671, "x")),
        ("103-evil\\|x", (103, "")),
        ("~~104-moved~~ (see 105)", (104, "")),
        ("[KEP-7 note](u)", (7, "")),
        ("1.35", None),
        ("see below", None),
        ("", None),
    ],
)
def test_name_in_cell(cell, expected):
    assert name_in_cell(cell) == expected


def test_a_row_left_as_is_still_names_its_kep():
    page = parse_page("m.md", PAGE)
    assert [r.number for r in page.rows] == [100]
    assert page.left == (
        ProblemRow(5, 101, "note"),
        ProblemRow(6, 102, "extra"),
        ProblemRow(7, 103, ""),
        ProblemRow(8, 104, ""),
    )
    assert len(page.problems) == 5  # each row left as is is still reported


def test_a_kep_whose_row_cannot_be_used_is_no_candidate_and_gets_no_second_row():
    page = parse_page("m.md", PAGE)
    opts = Options(add_page="m.md", add_table="Main", add_count=5, add_reasons=("new", "group"))
    t = track(snap(*KEPS), [page], [], {"m.md": page.lines}, opts, ("c.md", COVERAGE))
    assert [c.ident for c in t.candidates] == ["200"]
    assert (t.coverage.not_on_matrix, t.coverage.not_in_any_group) == ((300,), (100,))
    assert [(c.kep_id, c.new) for c in t.changes] == [("200", "200-new-one")]
    assert t.lines["m.md"] == page.lines[:10] + ["| 200-new-one | implementable / alpha | v1.37 / - / - |  |", ""]


def test_a_directory_name_with_a_pipe_gets_no_row_and_every_new_row_reads_back():
    page = (
        "## T\n\n| KEP | Status | Alpha / Beta / GA |\n|---|---|---|\n| KEP-1 | implementable / alpha | - / - / - |\n"
    )
    s = snap(kep(1, "one"), kep(6200, "evil|x", alpha="v1.37"), kep(6201, "fine", alpha="v1.37"))
    t = track(
        s,
        [parse_page("m.md", page)],
        [],
        {"m.md": page.split("\n")},
        Options(add_page="m.md", add_table="T", add_count=5, add_reasons=("new",)),
    )
    assert [c.ident for c in t.candidates] == ["6201", "6200"]
    assert t.lines["m.md"][5:] == ["| KEP-6201 | implementable / alpha | v1.37 / - / - |", ""]
    assert t.problems == [
        Problem(
            "m.md",
            "candidates.add_to",
            "KEP 6200: directory name '6200-evil|x' is not a plain "
            "KEP name (digits, '-', letters, '_', '.'); no row added",
        )
    ]


def test_runs_converge_each_adds_up_to_count_rows_until_none_qualifies():
    text = (
        "## T\n\n| KEP | Status | Alpha / Beta / GA |\n|---|---|---|\n| 1-one | implementable / alpha | - / - / - |\n"
    )
    s = snap(kep(1, "one"), *(kep(n, f"k{n}", alpha="v1.37") for n in (10, 11, 12)))
    added = []
    for _ in range(3):
        page = parse_page("m.md", text)
        t = track(
            s,
            [page],
            [],
            {"m.md": page.lines},
            Options(add_page="m.md", add_table="T", add_count=2, add_reasons=("new",)),
        )
        added.append([c.kep_id for c in t.changes])
        text = "\n".join(t.lines.get("m.md", page.lines))
    assert added == [["12", "11"], ["10"], []]


def test_a_production_table_gets_no_provisional_row():
    text = (
        "## P0\n\n| KEP | Status | Alpha / Beta / GA |\n|---|---|---|\n| 1-one | implementable / alpha | - / - / - |\n"
    )
    s = snap(kep(1, "one"), kep(20, "prov", status="provisional", alpha="v1.37"), kep(10, "impl", alpha="v1.37"))
    page = parse_page("m.md", text)
    opts = Options(
        add_page="m.md", add_table="P0", add_count=1, add_reasons=("new", "group"), production_tables=("p0",)
    )
    groups = ("c.md", "| Design group | 代表 KEP |\n|---|---|\n| G | 20 |\n")  # ranks 20 first
    t = track(s, [page], [], {"m.md": page.lines}, opts, groups)
    assert [c.ident for c in t.candidates] == ["20", "10"]
    assert [c.kep_id for c in t.changes] == ["10"]  # the provisional one does not use up the count
    assert t.problems == [
        Problem(
            "m.md",
            "candidates.add_to",
            "KEP 20: kep.yaml status 'provisional' is not "
            "production capability and 'P0' is in production_tables (rule 3); no row added",
        )
    ]
    t = track(s, [page], [], {"m.md": page.lines}, opts._replace(production_tables=()), groups)
    assert ([c.kep_id for c in t.changes], t.problems) == (["20"], [])


@pytest.mark.parametrize(
    ("end", "expected"),
    [
        ("", "| 1 | implementable / alpha |\r\n| 11 | implementable / alpha |\r\n| 10 | implementable / alpha |"),
        (
            "\r\n",
            "| 1 | implementable / alpha |\r\n| 11 | implementable / alpha |\r\n| 10 | implementable / alpha |\r\n",
        ),
    ],
)
def test_new_rows_end_as_the_table_lines_do_also_after_a_last_line_without_newline(end, expected):
    head = "## T\r\n\r\n| KEP | Status |\r\n|---|---|\r\n"
    s = snap(kep(1, "one"), kep(10, "a", alpha="v1.37"), kep(11, "b", alpha="v1.37"))
    lines = (head + "| 1 | implementable / alpha |" + end).split("\n")
    cands = track(s, [parse_page("m.md", "\n".join(lines))], [], {}, Options()).candidates
    out, added, _ = add_rows("m.md", lines, "T", cands, 5, DEFAULT_ALIASES, "", ("new",))
    assert "\n".join(out) == head + expected
    assert [a.line for a in added] == [6, 7]


def test_a_coverage_page_with_no_group_says_coverage_was_not_checked():
    page = parse_page("m.md", PAGE)
    for text, why in (
        (
            "| A | B |\n|---|---|\n| x | 1 |\n",
            "no design-group table (a column headed '代表 KEP', "
            "'Representative KEPs', 'Representative KEP', 'KEPs'); coverage not checked",
        ),
        ("| Design group | 代表 KEP |\n|---|---|\n", "the design-group table lists no group; coverage not checked"),
    ):
        assert parse_groups("c.md", text) == ([], [Problem("c.md", "", why)])
        cov = check_coverage("c.md", text, [100])
        assert (cov.checked, cov.as_report()) == (False, {"page": "c.md", "checked": False, "groups": []})
        t = track(snap(*KEPS), [page], [], {"m.md": page.lines}, Options(), ("c.md", text))
        assert render.sections(t, "", "https://x", limit=0) == [
            (
                ["### Design-group coverage (c.md)", ""],
                ["- **Not checked**: the page lists no design group (see Problems); nothing is known about coverage"],
                "coverage lines",
            )
        ]
    assert check_coverage("c.md", COVERAGE, [100]).checked is True


def test_kep_option_on_a_row_left_as_is_is_not_called_missing():
    from bot.config import Config
    from bot.plan.planner import plan_sync

    plan = plan_sync(
        Config.model_validate({"wiki": {"pages": ["m.md"]}}), snap(*KEPS), {"m.md": PAGE.encode()}, only={101, 999}
    )
    assert [p.message for p in plan.problems if p.path == "--kep"] == [
        "KEP 999 is in no matrix row of the pages; nothing to do for it"
    ]
    assert (
        Problem(
            "m.md",
            "line 6",
            "KEP cell '101-note': Status cell 'implementable (since v1.35) / alpha' is not "
            "in the expected format; left as is",
        )
        in plan.problems
    )
