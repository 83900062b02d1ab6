"""New rows (``candidates.add_to``) land inside their table in its own structure and read back in place, runs
converge, a KEP any row already names gets no second row, a number upstream uses twice gets a row only with
its slug, a value the diff withholds is never written, and a sample row's human marks are never copied
(bot/plan/tracking/rows.py, bot/wiki/kepnames.py name_in_cell, bot/plan/tracking/coverage.py); a page listed twice is one
page (bot/publish/directory.py)."""

from __future__ import annotations

import os

import pytest

from bot.config import Config
from bot.model.kep import Problem
from bot.plan.planner import plan_sync
from bot.plan.tracking import Options, track
from bot.publish.directory import read_wiki_pages
from bot.wiki.kepnames import name_in_cell
from bot.wiki.matrix import parse_page
from tests.harness.invariants import md_tables
from tests.trackingutil import kep, snap

BASE = kep(100, "base", alpha="v1.36")
NEW = kep(200, "new-one", alpha="v1.37", beta="v1.38")
HEAD = "| KEP | Status | Alpha / Beta / GA |"


def _run(page: str, *files, runs: int = 2, sigs=("node",), reasons=("new",), coverage=None):
    """``[(rows added per run, problems per run)]`` and the page after ``runs`` runs of the tracking stage."""
    s, lines, seen = snap(*files), page.split("\n"), []
    for _ in range(runs):
        t = track(
            s,
            [parse_page("m.md", "\n".join(lines))],
            [],
            {"m.md": lines},
            Options(sigs=sigs, add_page="m.md", add_table="T", add_count=5, add_reasons=reasons),
            coverage,
        )
        seen.append(([(a.line, a.ident, a.cell) for a in t.added], [p.message for p in t.problems]))
        lines = t.lines.get("m.md", lines)
    return seen, "\n".join(lines)


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ("<b>3000-other</b>", (3000, "other")),
        ('<a name="k3000"></a>3000-other', (3000, "other")),
        ("#3100", (3100, "")),
        ("**#3100**", (3100, "")),
        ("<b>KEP-7</b>", (7, "")),
        ("https://github.com/kubernetes/enhancements/issues/3100", (3100, "")),
        ("[tracking issue](https://github.com/kubernetes/enhancements/issues/3100)", (3100, "")),
        ("[see](https://kep.k8s.io/3100)", (3100, "")),
        (
            "[x](https://github.com/kubernetes/enhancements/tree/master/keps/sig-node/4671-gang-scheduling)",
            (4671, "gang-scheduling"),
        ),
        ("KEP #3007", (3007, "")),
        ("KEP\u20113004", (3004, "")),
        ("<b>KEP \u2014 3004</b>", (3004, "")),
        ("KEP\u20133004-x", (3004, "x")),
        ("KEP-1.35", None),
        ("see https://github.com/kubernetes/kubernetes/pull/3100", None),
        ("<b>soon</b>", None),
        ("#", None),
    ],
)
def test_name_in_cell_sees_through_html_issue_numbers_and_urls(cell, expected):
    assert name_in_cell(cell) == expected


def test_a_kep_any_row_names_gets_no_second_row():
    cells = [
        "<b>3000-other</b>",
        '<a name="k"></a>3001-anchor',
        "#3100",
        "https://kep.k8s.io/3101",
        "[issue](https://github.com/kubernetes/enhancements/issues/3102)",
    ]
    page = (
        "## T\n\n"
        + HEAD
        + "\n|---|---|---|\n"
        + "".join(f"| {c} | implementable / alpha | v1.37 / - / - |\n" for c in cells)
    )
    files = [
        kep(n, slug, alpha="v1.37")
        for n, slug in ((3000, "other"), (3001, "anchor"), (3100, "a"), (3101, "b"), (3102, "c"))
    ]
    seen, out = _run(page, *files, NEW, runs=1)
    assert seen[0][0] == [(10, "200", "#200")]  # in the style of the first row, #3100
    assert out == page + "| #200 | implementable / alpha | v1.37 / v1.38 / - |\n"


@pytest.mark.parametrize("dash", ["-", "\u2010", "\u2011", "\u2012", "\u2013", "\u2014", " #", "#"])
def test_a_kep_written_with_any_dash_or_hash_is_a_row_and_gets_no_second_row(dash):
    page = "## T\n\n" + HEAD + f"\n|---|---|---|\n| KEP{dash}200 | implementable / alpha | v1.37 / - / - |\n"
    assert [(r.line, r.number, r.slug) for r in parse_page("m.md", page).rows] == [(4, 200, "")]
    seen, out = _run(page, NEW)
    assert (seen, out) == ([([], []), ([], [])], page)


@pytest.mark.parametrize(
    ("table", "row"),
    [
        # an empty table in a list item: the row keeps the header's indentation, so it stays in the item
        (
            "- item\n\n  | KEP | Status | Alpha / Beta / GA |\n  |---|---|---|\n",
            "  | 200-new-one | implementable / alpha | v1.37 / v1.38 / - |",
        ),
        (
            "> | KEP | Status | Alpha / Beta / GA |\n> |---|---|---|\n",
            "> | 200-new-one | implementable / alpha | v1.37 / v1.38 / - |",
        ),
        (
            "1. item\n   > | KEP | Status | Alpha / Beta / GA |\n   > |---|---|---|\n",
            "   > | 200-new-one | implementable / alpha | v1.37 / v1.38 / - |",
        ),
        (
            "<details>\n<summary>KEPs</summary>\n\n| KEP | Status | Alpha / Beta / GA |\n|---|---|---|\n",
            "| 200-new-one | implementable / alpha | v1.37 / v1.38 / - |",
        ),
        (
            "- item\n\n  KEP | Status | Alpha / Beta / GA\n  ---|---|---\n",
            "  200-new-one | implementable / alpha | v1.37 / v1.38 / -",
        ),
        (
            "> KEP | Status | Alpha / Beta / GA\n> ---|---|---\n",
            "> 200-new-one | implementable / alpha | v1.37 / v1.38 / -",
        ),
        (
            "| KEP         | Status                 | Alpha / Beta / GA   |\n|:------------|:----------------------:|--------------------:|\n",
            "| 200-new-one | implementable / alpha  |   v1.37 / v1.38 / - |",
        ),
    ],
)
def test_a_row_lands_in_its_table_in_that_tables_structure_and_runs_converge(table, row):
    page = f"## T\n\n{table}\nafter\n"
    seen, out = _run(page, NEW)
    line = page[: page.index("\nafter")].count("\n") + 1  # 1-based: just below the delimiter row
    assert seen == [([(line, "200", "200-new-one")], []), ([], [])]
    assert out == page.replace("\nafter", f"{row}\n\nafter", 1)


@pytest.mark.parametrize(
    ("table", "row"),
    [
        # no outer pipes and a human column first and last: the emptied edge cells get the pipes GFM needs
        (
            "Notes | KEP | Status | Alpha / Beta / GA | More\n--- | --- | --- | --- | ---\n"
            "hi | 100-base | implementable / alpha | v1.36 / - / - | x\n",
            "| | 200-new-one | implementable / alpha | v1.37 / v1.38 / - | |",
        ),
        (  # padded: the pipe takes the first space of the blank first cell, the columns stay aligned
            "Notes | KEP         | Status                | Alpha / Beta / GA | More\n"
            "----- | ----------- | --------------------- | ----------------- | ----\n"
            "hi    | 100-base    | implementable / alpha | v1.36 / - / -     | x   \n",
            "|     | 200-new-one | implementable / alpha | v1.37 / v1.38 / - |    |",
        ),
        (  # leading pipe only, an escaped pipe in a human cell
            "| Notes | KEP | Status | Alpha / Beta / GA | More\n|---|---|---|---|---\n"
            "| a \\| b | 100-base | implementable / alpha | v1.36 / - / - | x\n",
            "|  | 200-new-one | implementable / alpha | v1.37 / v1.38 / - | |",
        ),
    ],
)
def test_a_row_keeps_empty_first_and_last_cells_in_a_table_without_outer_pipes(table, row):
    page = f"## T\n\n{table}\nafter\n"
    seen, out = _run(page, BASE, NEW)
    line = page[: page.index("\nafter")].count("\n") + 1
    assert seen == [([(line, "200", "200-new-one")], []), ([], [])]
    assert out == page.replace("\nafter", f"{row}\n\nafter", 1)
    (table_rows,) = [t for t in md_tables(out) if len(t) > 1 or "200" in str(t)]
    assert [cells for _, cells in table_rows][-1] == [
        "",
        "200-new-one",
        "implementable / alpha",
        "v1.37 / v1.38 / -",
        "",
    ]


SHARED = (
    kep(2133, "kubelet-credential-providers", "sig-auth", alpha="v1.37", beta="v1.38"),
    kep(2133, "other-thing", alpha="v1.37"),
)


def test_a_number_upstream_uses_twice_gets_rows_only_with_its_slug():
    page = "## T\n\n" + HEAD + "\n|---|---|---|\n| KEP-100 | implementable / alpha | v1.36 / - / - |\n"
    seen, out = _run(page, BASE, *SHARED, sigs=("node", "auth"))
    assert seen == [
        (
            [
                (6, "2133-kubelet-credential-providers", "2133-kubelet-credential-providers"),
                (7, "2133-other-thing", "2133-other-thing"),
            ],
            [],
        ),
        ([], []),
    ]
    assert out.split("\n")[5:7] == [
        "| 2133-kubelet-credential-providers | implementable / alpha | v1.37 / v1.38 / - |",
        "| 2133-other-thing | implementable / alpha | v1.37 / - / - |",
    ]


def test_a_design_group_that_names_a_slug_lists_that_kep_only():
    page = "## T\n\n" + HEAD + "\n|---|---|---|\n| 100-base | implementable / alpha | v1.36 / - / - |\n"
    cov = ("c.md", "| Design group | Representative KEPs |\n|---|---|\n| Auth | 2133-kubelet-credential-providers |\n")
    seen, _ = _run(page, BASE, *SHARED, sigs=("nothing",), reasons=("group",), coverage=cov, runs=1)
    assert seen[0] == ([(6, "2133-kubelet-credential-providers", "2133-kubelet-credential-providers")], [])


DUP_STAGE = (
    "keps/sig-node/300-dup/kep.yaml",
    b"title: T\nkep-number: 300\nowning-sig: sig-node\nstatus: implementable\n"
    b'stage: alpha\nstage: stable\nlatest-milestone: "v1.37"\nmilestone:\n  alpha: "v1.37"\nfeature-gates: []\n',
)


def test_a_value_the_diff_withholds_is_never_written_into_a_new_row():
    page = "## T\n\n" + HEAD + "\n|---|---|---|\n| 100-base | implementable / alpha | v1.36 / - / - |\n"
    seen, out = _run(page, BASE, DUP_STAGE, kep(301, "tbd", alpha="v1.37", beta="TBD"), runs=1)
    assert seen[0] == (
        [],
        [
            "KEP 301: kep.yaml milestone.beta 'TBD' is a placeholder, not a milestone; no row added",
            "KEP 300: stage is given twice in kep.yaml (lines 5 and 6), so stage is not written; no row added",
        ],
    )
    assert out == page


def test_a_kep_with_a_rejected_gate_name_gets_no_new_row():
    page = (
        "## T\n\n| KEP | Status | Alpha / Beta / GA | Feature gate |\n|---|---|---|---|\n"
        "| 100-base | implementable / alpha | v1.36 / - / - | - |\n"
    )
    seen, out = _run(page, BASE, kep(302, "gates", alpha="v1.37", gates=("GoodGate", "Bad Gate")), runs=1)
    assert seen[0] == (
        [],
        [
            "KEP 302: feature-gates[1].name in kep.yaml is not a feature gate name ('Bad Gate'), "
            "so the list is not trusted, so feature_gates is not written; no row added"
        ],
    )
    assert out == page


def test_human_marks_of_the_sample_row_are_not_copied():
    page = (
        "## T\n\n| KEP | Status | Alpha / Beta / GA | Notes |\n|---|---|---|---|\n"
        "| **100-base**¹ | **implementable** / alpha* | _v1.36_ / - / - | x |\n"
        "| 101-b | implementable / alpha | v1.36 / - / - | y |\n"
    )
    seen, out = _run(page, BASE, kep(101, "b", alpha="v1.36"), NEW, runs=1)
    assert seen[0][0] == [(7, "200", "200-new-one")]
    assert out.split("\n")[6] == "| 200-new-one | implementable / alpha | v1.37 / v1.38 / - |  |"


def test_a_kep_column_every_row_wraps_in_emphasis_keeps_that_style():
    page = "## T\n\n" + HEAD + "\n|---|---|---|\n| **100-base** | Implementable / Alpha | 1.36 / - / - |\n"
    seen, out = _run(page, BASE, NEW, runs=1)
    assert seen[0][0] == [(6, "200", "**200-new-one**")]
    assert out.split("\n")[5] == "| **200-new-one** | Implementable / Alpha | 1.37 / 1.38 / - |"


def test_a_page_listed_twice_through_a_link_is_read_once(tmp_path):
    (tmp_path / "m.md").write_bytes(b"x")
    os.symlink("m.md", tmp_path / "alias.md")
    os.link(tmp_path / "m.md", tmp_path / "hard.md")
    (tmp_path / "sub").mkdir()
    names = ["m.md", "alias.md", "sub/../m.md", "./m.md", "hard.md"]
    assert read_wiki_pages(tmp_path, names, once=names) == {"m.md": b"x"}
    assert read_wiki_pages(tmp_path, ["alias.md", "m.md"], once=["alias.md", "m.md"]) == {"alias.md": b"x"}
    # a page that is not a wiki.pages entry (a coverage page) is read under its own name
    assert read_wiki_pages(tmp_path, ["m.md", "alias.md"], once=["m.md"]) == {"m.md": b"x", "alias.md": b"x"}


def test_add_to_naming_a_page_read_under_an_earlier_name_is_a_problem():
    page = "## T\n\n" + HEAD + "\n|---|---|---|\n| 100-base | implementable / alpha | v1.36 / - / - |\n"
    config = Config.model_validate(
        {
            "wiki": {"dir": ".", "pages": ["m.md", "alias.md"]},
            "candidates": {"sigs": ["node"], "add_to": {"page": "alias.md", "table": "T", "reasons": ["new"]}},
        }
    )
    plan = plan_sync(config, snap(BASE, NEW), {"m.md": page.encode()})
    assert plan.changed_pages() == {}
    assert (
        Problem(
            "alias.md",
            "candidates.add_to.page",
            "the same file as an earlier wiki.pages entry, which is read "
            "and written under that name; no rows added (name that entry in candidates.add_to.page)",
        )
        in plan.problems
    )


def test_a_row_in_an_empty_table_without_outer_pipes_keeps_its_empty_edge_cells():
    page = "## T\n\nNotes | KEP | Status | Alpha / Beta / GA | More\n--- | --- | --- | --- | ---\n\nafter\n"
    seen, out = _run(page, NEW)
    assert seen == [([(5, "200", "200-new-one")], []), ([], [])]
    assert out == page.replace(
        "\n\nafter", "\n|  | 200-new-one | implementable / alpha | v1.37 / v1.38 / - |  |\n\nafter", 1
    )
