"""KEP matrix tables on a page: column roles, row keys, unparseable rows (bot/wiki/matrix.py)."""

from __future__ import annotations

import pytest

from bot.model.kep import Problem
from bot.wiki.kepnames import parse_kep_cell
from bot.wiki.matrix import (
    DEFAULT_ALIASES,
    cell_gates,
    cell_value,
    column_roles,
    parse_page,
    render_gates,
    render_row,
)

try:
    from tests.syncutil import PAGE
except ImportError:  # pragma: no cover
    from syncutil import PAGE


@pytest.mark.parametrize(
    "text, key",
    [
        ("4671-gang-scheduling", (4671, "gang-scheduling")),
        ("[4671-gang-scheduling](https://github.com/kubernetes/enhancements/issues/4671)", (4671, "gang-scheduling")),
        ("KEP-4671", (4671, "")),
        ("kep 4671", (4671, "")),
        ("4671", (4671, "")),
        ("[KEP-4671](https://kep.k8s.io/4671)", (4671, "")),
        ("**2702-graduate-hpa-api-to-GA**", (2702, "graduate-hpa-api-to-GA")),
        ("0000-kep-process", (0, "kep-process")),
        ("`2133-kubelet-credential-providers`", (2133, "kubelet-credential-providers")),
        ("#4671", (4671, "")),
        ("KEP #4671", (4671, "")),
        ("kubernetes/enhancements#4671", (4671, "")),
        ("https://kep.k8s.io/4671", (4671, "")),
        ("kep.k8s.io/4671", (4671, "")),
        ("<https://github.com/kubernetes/enhancements/issues/4671>", (4671, "")),
        ("[KEP-2021](https://github.com/kubernetes/enhancements/issues/2021)", (2021, "")),
        ("[Gang scheduling](https://kep.k8s.io/4671)", (4671, "")),
        ("[#1287](https://github.com/kubernetes/enhancements/issues/1287)", (1287, "")),
        ("[kubernetes/enhancements#1287](https://example.org/notes)", (1287, "")),
        (
            "[tree](https://github.com/kubernetes/enhancements/tree/master/keps/sig-node/4671-gang-scheduling/README.md)",
            (4671, "gang-scheduling"),
        ),
        ("2718-20210511-client-exec-proxy", (2718, "20210511-client-exec-proxy")),
    ],
)
def test_kep_cell_forms(text, key):
    assert parse_kep_cell(text) == key


@pytest.mark.parametrize(
    "text",
    [
        "",
        "-",
        "TBD",
        "gang scheduling",
        "v1.30",
        "1.30",
        "[link](4671)",
        "#12x",
        "2026-01-20",
        "kubernetes/kubernetes#123",
        "https://github.com/kubernetes/enhancements/pull/4671",
        "https://github.com/example/enhancements/issues/4671",
        "[4671](https://github.com/kubernetes/kubernetes/pull/4671)",
        "[#123](https://github.com/kubernetes/kubernetes/issues/123)",
        "[4671](https://kep.k8s.io/4672)",
        "[v1.30](https://kep.k8s.io/4671)",
    ],
)
def test_cells_that_name_no_kep(text):
    assert parse_kep_cell(text) is None


def test_column_roles_by_alias_case_and_spacing_insensitive():
    header = ["KEP", "SIG", "**Status**", "alpha /  beta / ga", "feature GATE", "Notes"]
    assert column_roles(header, DEFAULT_ALIASES) == {"kep": 0, "status": 2, "milestones": 3, "feature_gates": 4}
    assert column_roles(["KEP", "状态", "Stage", "Alpha", "Beta", "GA"], DEFAULT_ALIASES) == {
        "kep": 0,
        "status": 1,
        "stage": 2,
        "alpha": 3,
        "beta": 4,
        "stable": 5,
    }
    assert column_roles(["Number", "Status"], {"kep": ["Number"], "status": ["Status"]}) == {"kep": 0, "status": 1}


def test_page_rows_from_two_tables_with_different_columns():
    page = parse_page("m.md", PAGE)
    assert page.problems == []
    assert [(r.line, r.number, r.slug) for r in page.rows] == [
        (17, 4671, "gang-scheduling"),
        (18, 5710, "workload-aware-preemption"),
        (30, 624, ""),
        (31, 785, ""),
    ]
    assert set(page.rows[0].cells) == {"kep", "status", "milestones", "feature_gates"}
    assert set(page.rows[2].cells) == {"kep", "status", "milestones"}
    assert page.lines == PAGE.split("\n")


def test_row_values_by_field():
    row = parse_page("m.md", PAGE).rows[0]
    assert [row.value(f) for f in ("status", "stage", "alpha", "beta", "stable", "feature_gates")] == [
        "implementable",
        "alpha",
        "v1.35",
        "-",
        "-",
        "`GenericWorkload`",
    ]
    assert parse_page("m.md", PAGE).rows[2].value("feature_gates") is None


def test_tables_without_a_kep_column_and_fenced_tables_give_no_rows():
    text = "| 字段 | 含义 |\n|---|---|\n| 4671 | x |\n\n```\n| KEP | 状态 |\n|---|---|\n| 4671 | x / y |\n```\n"
    page = parse_page("p.md", text)
    assert page.rows == []
    assert page.problems == [
        Problem(
            "p.md",
            "",
            "no table with a KEP column ('KEP'); nothing to sync on this page: if it holds no KEP matrix, remove it "
            "from wiki.pages; else add the KEP column's header to columns.kep (kep-sync init writes it)",
        )
    ]


def test_a_bom_before_the_first_table_and_non_ascii_digits():
    page = parse_page("p.md", "\ufeff| KEP | 状态 |\n|---|---|\n| 4671 | a / b |\n| ٤٦٧١-x | a / b |\n")
    assert [(r.line, r.number) for r in page.rows] == [(2, 4671)]
    assert page.problems == [Problem("p.md", "line 4", "KEP cell '٤٦٧١-x' names no KEP; left as is")]


def test_unparseable_rows_are_reported_and_skipped():
    text = (
        "| KEP | 状态 | Alpha / Beta / GA |\n|---|---|---|\n"
        "| 1-a | implemented / stable | v1.1 / v1.2 / v1.3 |\n"
        "| 2-b | implemented / stable |\n"
        "| 3-c | implemented / stable | v1.1 / v1.2 / v1.3 | extra |\n"
        "| gang scheduling | implemented / stable | v1.1 / v1.2 / v1.3 |\n"
        "| 5-e | implemented / stable | v1.1 / v1.2 |\n"
        "| 6-f | implemented / stable / extra | v1.1 / v1.2 / v1.3 |\n"
    )
    page = parse_page("p.md", text)
    assert [r.number for r in page.rows] == [1]
    assert page.problems == [
        Problem(
            "p.md",
            "line 4",
            "KEP cell '2-b': row has 2 cells, header has 3; its Alpha / Beta / GA cell is past the row's end and "
            "cannot be empty; left as is: add the missing `| |` cells",
        ),
        Problem("p.md", "line 5", "KEP cell '3-c': row has 4 cells, header has 3; left as is"),
        Problem("p.md", "line 6", "KEP cell 'gang scheduling' names no KEP; left as is"),
        Problem(
            "p.md",
            "line 7",
            "KEP cell '5-e': Alpha / Beta / GA cell 'v1.1 / v1.2' is not in the expected format; left as is",
        ),
        Problem(
            "p.md",
            "line 8",
            "KEP cell '6-f': 状态 cell 'implemented / stable / extra' is not in the expected format; left as is",
        ),
    ]


def test_status_cell_without_stage_part():
    page = parse_page("p.md", "| KEP | Status |\n|---|---|\n| 1 | implemented |\n")
    assert page.rows[0].value("status") == "implemented"
    assert page.rows[0].value("stage") is None


def test_separate_stage_and_milestone_columns():
    text = "| KEP | Status | Stage | Alpha | Beta | GA |\n|---|---|---|---|---|---|\n| 7 | implementable | beta | 1.30 | 1.31 | - |\n"
    row = parse_page("p.md", text).rows[0]
    assert [row.value(f) for f in ("status", "stage", "alpha", "beta", "stable")] == [
        "implementable",
        "beta",
        "1.30",
        "1.31",
        "-",
    ]


def test_render_row_replaces_only_the_named_parts():
    page = parse_page("m.md", PAGE)
    row = page.rows[0]
    line = page.lines[row.line]
    new = render_row(line, row, {"stage": "beta", "beta": "v1.37", "stable": ""})
    assert new == line.replace("implementable / alpha", "implementable / beta").replace(
        "v1.35 / - / -", "v1.35 / v1.37 / -"
    )


def test_render_row_keeps_crlf_padding_and_escapes_values():
    text = "| KEP | Status | Notes |\r\n|---|---|---|\r\n|  1-a  |  implementable  /  alpha  | a \\| b |\r\n"
    page = parse_page("p.md", text)
    row = page.rows[0]
    assert render_row(page.lines[2], row, {"status": "x|y"}) == "|  1-a  |  x\\|y  /  alpha  | a \\| b |\r"


def test_cell_gates_and_render_gates():
    assert cell_gates("`B`, `A`, `A`") == ("A", "B")
    assert cell_gates("`DownwardAPIAssignedResources` 等") == ("DownwardAPIAssignedResources",)
    assert cell_gates("GateOne, GateTwo") == ("GateOne", "GateTwo")
    for blank in ("-", "NA", "n/a", "None", ""):
        assert cell_gates(blank) == ()
    assert render_gates(("A", "B")) == "`A`, `B`"
    assert render_gates(()) == "-"


def test_cell_value():
    assert cell_value(" - ") == ""
    assert cell_value("NA") == ""
    assert cell_value("a \\| b") == "a | b"
    assert cell_value("v1.30") == "v1.30"


def test_a_table_that_starts_on_a_list_items_line_is_read_without_the_marker():
    from bot.plan.diff import diff_page
    from tests.syncutil import kep, snapshot

    page = "- | KEP | Status |\n  |---|---|\n  | 4671 | implementable / alpha |\n\n1. KEP | Stage\n   --|--\n   x | y\n"
    parsed = parse_page("m.md", page)
    assert [(r.line, r.number, {k: c.text for k, c in r.cells.items()}) for r in parsed.rows] == [
        (2, 4671, {"kep": "4671", "status": "implementable / alpha"})
    ]
    assert parsed.problems == [Problem("m.md", "line 7", "KEP cell 'x' names no KEP; left as is")]
    diff = diff_page(parsed, snapshot(kep(4671, "gang-scheduling", stage="beta", beta="v1.37")))
    assert diff.lines[:3] == ["- | KEP | Status |", "  |---|---|", "  | 4671 | implementable / beta |"]


@pytest.mark.parametrize(
    ("table", "old", "new"),
    [
        (  # pipes outside: the page's empty "none" is written as is, every other byte kept
            "| KEP | Stage | Alpha | Beta |\n|---|---|---|---|\n| 1-a | beta | v1.1 | |\n",
            "| 4671-x | beta | v1.30 | v1.31 |",
            "| 4671-x | beta |  |  |",
        ),
        (  # no pipe after the last cell: an empty text would drop the cell, so it gets "-"
            "KEP | Stage | Alpha | Beta\n---|---|---|---\n1-a | beta | v1.1 | \n",
            "4671-x | beta | v1.30 | v1.31",
            "4671-x | beta |  | -",
        ),
    ],
)
def test_a_cleared_milestone_on_a_page_whose_empty_cells_mean_none(table, old, new):
    page = parse_page("p.md", f"{table}{old}\n")
    [row] = [r for r in page.rows if r.number == 4671]
    written = render_row(old, row, {"alpha": "", "beta": ""})
    assert written == new
    again = parse_page("p.md", f"{table}{written}\n")
    assert ([(r.number, r.line) for r in again.rows], again.problems) == ([(1, 2), (4671, 3)], [])
    [after] = [r for r in again.rows if r.number == 4671]
    assert render_row(written, after, {"alpha": "", "beta": ""}) == written  # a second run writes nothing
