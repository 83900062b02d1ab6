"""Rows with fewer cells than the header: read padded with empty cells as GitHub shows them, synced in the
cells they have, left as is (with a problem naming the line) when a cell to write is past their end."""

from __future__ import annotations

from bot.model.kep import Problem
from bot.plan.diff import Change, diff_page
from bot.wiki.matrix import parse_page

try:
    from tests.syncutil import kep, snapshot
except ImportError:  # pragma: no cover
    from syncutil import kep, snapshot

HEADER = "KEP | Feature | Stage | Alpha | Beta | GA | Notes\n--- | --- | --- | --- | --- | --- | ---\n"
P = "keps/sig-scheduling/3962-foo/kep.yaml"


def run(text: str, *keps):
    page = parse_page("p.md", text)
    return page, diff_page(page, snapshot(*keps))


def test_a_short_row_is_read_padded_with_empty_cells():
    page = parse_page("p.md", HEADER + "3962 | Foo | alpha | v1.32 | \n")
    assert page.problems == [] and page.left == ()
    (row,) = page.rows
    assert (row.number, row.value("stage"), row.value("alpha"), row.value("beta"), row.value("stable")) == (
        3962,
        "alpha",
        "v1.32",
        "",
        "",
    )
    assert row.beyond == frozenset({"beta", "stable"})


def test_a_short_row_is_synced_in_the_cells_it_has_and_a_second_run_proposes_nothing():
    text = HEADER + "3962 | Foo | alpha | v1.31 | \n"
    page, diff = run(text, kep(3962, "foo", stage="alpha", alpha="v1.32"))
    assert diff.changes == [
        Change("3962", "p.md", 3, "alpha", "v1.31", "v1.32", "retargeted", True, P, written="v1.32")
    ]
    assert diff.problems == []
    assert diff.lines[2] == "3962 | Foo | alpha | v1.32 | "
    assert diff.lines[:2] == page.lines[:2] and diff.lines[3:] == page.lines[3:]
    _, again = run("\n".join(diff.lines), kep(3962, "foo", stage="alpha", alpha="v1.32"))
    assert (again.changes, again.problems) == ([], [])


def test_a_short_row_whose_cell_to_write_is_past_its_end_is_left_byte_identical():
    text = HEADER + "3962 | Foo | alpha | v1.32 | \r\n| 1 | a | alpha | v1.35 | | | x |\n"
    upstream = kep(3962, "foo", stage="beta", alpha="v1.32", beta="v1.33")
    page, diff = run(text, upstream, kep(1, "a"))
    assert diff.changes == []
    assert diff.lines == page.lines
    assert diff.problems == [
        Problem(
            "p.md",
            "line 3",
            "KEP cell '3962': row has 4 cells, fewer than the header; its beta cell is past the row's end, where kep-sync "
            "does not write; left as is: add the missing `| |` cells to let kep-sync write it",
        )
    ]


def test_a_row_with_more_cells_than_the_header_is_still_left_as_is():
    page = parse_page("p.md", "| KEP | Stage |\n|---|---|\n| 1-a | alpha | extra |\n")
    assert page.rows == []
    assert page.problems == [Problem("p.md", "line 3", "KEP cell '1-a': row has 3 cells, header has 2; left as is")]


def test_a_cleared_milestone_follows_the_pages_none_and_the_report_says_what_is_written():
    """A page whose empty cells mean none gets an empty cell for a target removed (never a ``-`` of
    kep-sync's), a ``-`` page a ``-``; the report's ``new`` is the text written (``GA`` where kep.yaml says
    ``stable``, ``""`` or ``-`` for none)."""
    from bot.config import validate_config
    from bot.plan.planner import plan_sync
    from tests.syncutil import snapshot

    snap = snapshot(
        kep(1, "a", stage="beta", alpha="v1.30", beta="v1.31", stable=""),
        kep(2, "b", stage="stable", alpha="v1.30", beta="v1.31", stable="v1.32"),
    )
    head = "| KEP | Stage | Alpha | Beta | GA |\n|---|---|---|---|---|\n"
    for none in ("", "-"):
        page = head + f"| 1-a | beta | v1.30 | v1.31 | v1.33 |\n| 2-b | GA | v1.30 | {none} | {none} |\n"
        page = page.replace("|  |", "| |") if not none else page
        plan = plan_sync(validate_config({}, "t"), snap, {"p.md": page.encode()})
        written = plan.pages[0].new.decode().split("\n")
        shown = "  " if not none else " - "
        assert written[2] == f"| 1-a | beta | v1.30 | v1.31 |{shown}|"
        assert [(c["kep"], c["field"], c["new"]) for c in plan.report["changes"]] == [
            ("1", "stable", none),
            ("2", "beta", "v1.31"),
            ("2", "stable", "v1.32"),
        ]
    page = head + "| 2-b | beta | v1.30 | v1.31 | v1.32 |\n| 1-a | GA | v1.30 | v1.31 | |\n"
    plan = plan_sync(validate_config({}, "t"), snap, {"p.md": page.encode()})
    assert [(c["kep"], c["field"], c["new"]) for c in plan.report["changes"]] == [
        ("2", "stage", "GA"),
        ("1", "stage", "beta"),
    ]
