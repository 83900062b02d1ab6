"""Human marks in owned cells (footnotes, ticks, HTML, a patch number, strikethrough) are never deleted
(bot/wiki/matrix.py page_reading, bot/plan/diff.py)."""

from __future__ import annotations

import pytest

from bot.model.kep import Problem
from bot.plan.diff import diff_page
from bot.wiki.matrix import parse_page

try:
    from tests.syncutil import kep, snapshot
except ImportError:  # pragma: no cover
    from syncutil import kep, snapshot

HEADER = "| KEP | Status | Alpha / Beta / GA |\n|---|---|---|\n"
PATH = "keps/sig-scheduling/1-a/kep.yaml"


def run(row: str, **fields):
    page = parse_page("p.md", HEADER + row + "\n")
    return diff_page(page, snapshot(kep(1, "a", **fields))), page.lines


@pytest.mark.parametrize("stage", ["alpha*", "alpha¹", "alpha✅", "alpha<br>", "*alpha", "alpha:", "＊alpha"])
def test_a_marked_stage_equal_to_upstream_is_no_change(stage):
    diff, old = run(f"| 1 | implementable / {stage} | v1.35 / - / - |", stage="alpha", alpha="v1.35")
    assert (diff.changes, diff.problems, diff.lines) == ([], [], old)


@pytest.mark.parametrize("alpha", ["v1.35*", "v1.35†", "v1.35✅", "v1.35.0", "v1.35<br>"])
def test_a_marked_milestone_equal_to_upstream_is_no_change(alpha):
    diff, old = run(f"| 1 | implementable / alpha | {alpha} / - / - |", stage="alpha", alpha="v1.35")
    assert (diff.changes, diff.problems, diff.lines) == ([], [], old)


@pytest.mark.parametrize(
    "row, fields, message",
    [
        (
            "| 1 | implementable / alpha* | v1.35 / - / - |",
            {"stage": "beta", "beta": ""},
            "stage cell 'alpha*' has marks kep-sync does not understand; kep.yaml says 'beta'; stage cell kept",
        ),
        (
            "| 1 | implementable / alpha | v1.35† / - / - |",
            {"alpha": "v1.36"},
            "alpha cell 'v1.35†' has marks kep-sync does not understand; kep.yaml says 'v1.36'; alpha cell kept",
        ),
        (
            "| 1 | implementable / alpha | v1.35.0 / - / - |",
            {"alpha": "v1.36"},
            "alpha cell 'v1.35.0' names a patch release, not a milestone; kep.yaml says 'v1.36'; alpha cell kept",
        ),
        (
            "| 1 | implementable / alpha | v1.036 / - / - |",
            {"alpha": "v1.36"},
            "alpha cell 'v1.036' is not a milestone kep-sync can read; kep.yaml says 'v1.36'; alpha cell kept",
        ),
    ],
)
def test_a_marked_part_that_differs_from_upstream_is_kept_and_reported(row, fields, message):
    diff, old = run(row, **fields)
    assert (diff.changes, diff.lines) == ([], old)
    assert diff.problems == [Problem("p.md", "line 3", f"{message} ({PATH})")]


def test_the_other_fields_of_a_row_with_a_marked_part_are_still_written():
    diff, old = run(
        "| 1 | implementable / alpha* | v1.35 / - / - |",
        status="implemented",
        stage="beta",
        alpha="v1.35",
        beta="v1.36",
    )
    assert [(c.field, c.old, c.new) for c in diff.changes] == [
        ("status", "implementable", "implemented"),
        ("beta", "", "v1.36"),
    ]
    assert diff.lines[2] == "| 1 | implemented / alpha* | v1.35 / v1.36 / - |"
    assert diff.problems == [
        Problem(
            "p.md",
            "line 3",
            "stage cell 'alpha*' has marks kep-sync does not understand; "
            f"kep.yaml says 'beta'; stage cell kept ({PATH})",
        )
    ]


@pytest.mark.parametrize(
    "row, column, cell",
    [
        ("| 1 | implementable / ~~beta~~alpha | v1.35 / - / - |", "Status", "implementable / ~~beta~~alpha"),
        ("| 1 | implementable / alpha | ~~v1.34~~v1.35 / - / - |", "Alpha / Beta / GA", "~~v1.34~~v1.35 / - / -"),
        ("| 1 | implementable / alpha | ~~v1.34~~ / - / - |", "Alpha / Beta / GA", "~~v1.34~~ / - / -"),
    ],
)
def test_a_struck_through_part_is_history_and_its_row_is_left_as_is(row, column, cell):
    diff, old = run(row, stage="alpha", alpha="v1.35")  # never ~~v1.35~~: strikethrough is not carried over
    assert (diff.changes, diff.lines) == ([], old)
    assert diff.problems == [
        Problem(
            "p.md",
            "line 3",
            f"KEP cell '1': {column} cell {cell!r} has a struck-through part (history, not a value); left as is",
        )
    ]


def test_emphasis_around_the_whole_part_stays_on_the_new_value():
    diff, _ = run("| 1 | implementable / **alpha** | _v1.35_ / - / - |", stage="beta", alpha="v1.34", beta="v1.36")
    assert diff.lines[2] == "| 1 | implementable / **beta** | _v1.34_ / v1.36 / - |"
    assert diff.problems == []
