"""The tracking stage (bot/plan/tracking/): candidates, design-group coverage, production list, new rows.

Small hand-written KEPs and pages only; the real-data checks are in test_acceptance_tracking.py.
"""

from __future__ import annotations

import pytest

from bot.model.finding import Finding
from bot.model.kep import Problem
from bot.plan.diff import Change
from bot.plan.tracking import Options, track
from bot.plan.tracking.candidates import find_candidates, window_start
from bot.plan.tracking.coverage import check_coverage, parse_groups, split_items
from bot.plan.tracking.production import left_production, not_production
from bot.plan.tracking.rows import add_rows
from bot.wiki.matrix import DEFAULT_ALIASES, parse_page
from bot.wiki.sections import Heading, find_headings, heading_above, same_heading
from tests.trackingutil import REV, kep, snap

PAGE = """# Matrix

## P0 Landmark KEPs

| KEP | SIG | 状态 | Alpha / Beta / GA | Feature gate | 说明 |
|---|---|---|---|---|---|
| 100-on-page | node | implementable / alpha | v1.37 / - / - | `SharedGate` | human text |
| 101-withdrawn-one | node | withdrawn / alpha | v1.30 / - / - | - | lineage |

## P1 Foundation KEPs

| KEP | 状态 | Alpha / Beta / GA |
|---|---|---|
| 102-provisional-one | provisional / alpha | v1.36 / - / - |
"""

ON_PAGE = (
    kep(100, "on-page", alpha="v1.37", gates=("SharedGate",)),
    kep(101, "withdrawn-one", status="withdrawn", latest="v1.30", alpha="v1.30"),
    kep(102, "provisional-one", status="provisional", latest="v1.36", alpha="v1.36"),
)


# --- candidates -------------------------------------------------------------------------------------------------


def test_window_counts_back_from_the_newest_latest_milestone_not_from_targets():
    s = snap(
        kep(1, "a", latest="v1.38", alpha="v1.38", stable="v1.41"),
        kep(2, "b", latest="1.37"),
        kep(3, "c", latest="TBD"),
    )
    assert window_start(s.all_keps(), 1) == (1, 37)
    assert window_start(s.all_keps(), 3) == (1, 35)
    assert window_start(s.all_keps(), 50) == (1, 0)
    assert window_start(snap(kep(3, "c", latest="")).all_keps(), 1) is None
    # a typo far ahead of every other latest-milestone does not move the window
    typo = snap(kep(1, "a", latest="v1.73"), kep(2, "b", latest="v1.38"), kep(3, "c", latest="v1.37"))
    assert window_start(typo.all_keps(), 1) == (1, 37)
    assert window_start(snap(kep(1, "a", latest="v1.38")).all_keps(), 1) == (1, 37)
    assert window_start(snap(kep(1, "a", latest="v1.38"), kep(2, "b", latest="v1.30")).all_keps(), 1) == (1, 37)


def test_candidates_reasons_and_order():
    s = snap(
        *ON_PAGE,
        kep(200, "new-alpha", alpha="v1.37", beta="v1.38"),  # new in v1.37
        kep(201, "old-but-active", latest="v1.37", alpha="v1.30", beta="v1.37"),  # active
        kep(202, "targets-ga", latest="v1.35", alpha="v1.33", stable="v1.38"),  # targets stable in v1.38
        kep(203, "stale", latest="v1.30", alpha="v1.30"),  # not active
        kep(204, "gate-sharer", latest="v1.30", alpha="v1.30", gates=("SharedGate",)),
        kep(205, "other-sig", "sig-apps", alpha="v1.37"),  # SIG not tracked
        kep(206, "grouped", "sig-apps", latest="v1.20", alpha="v1.20"),  # but in a design group
        kep(207, "gone", status="withdrawn", alpha="v1.37"),
        kep(208, "rejected", status="rejected", alpha="v1.37"),
        kep(209, "replaced", status="replaced", alpha="v1.37"),
        kep(210, "superseded", status="superseded", alpha="v1.37"),
        kep(211, "provisional-new", status="provisional", alpha="v1.37"),
        kep(212, "newest", latest="v1.38", alpha="v1.38"),
    )
    on = {p for p, _ in ON_PAGE}
    got = find_candidates(
        s,
        on,
        sigs=["node"],
        shown_gates={"SharedGate": {"100"}},
        groups={"keps/sig-apps/206-grouped/kep.yaml": ("Apps group",)},
        releases=1,
    )
    assert [(c.ident, c.reasons, c.score) for c in got] == [
        ("206", ('in design group "Apps group"',), 8),
        ("212", ("new in v1.38",), 4),
        ("200", ("new in v1.37",), 4),
        ("211", ("new in v1.37",), 3),
        ("201", ("active in v1.37",), 2),
        ("204", ("shares gate SharedGate with 100",), 2),
        ("202", ("targets stable in v1.38",), 1),
    ]
    assert got[1].as_report() == {
        "kep": "212",
        "title": "Title of newest",
        "sig": "sig-node",
        "path": "keps/sig-node/212-newest/kep.yaml",
        "status": "implementable",
        "stage": "alpha",
        "latest_milestone": "v1.38",
        "alpha": "v1.38",
        "beta": "",
        "stable": "",
        "feature_gates": [],
        "reasons": ["new in v1.38"],
    }


def test_candidates_sigs_ignore_and_a_wider_window():
    s = snap(
        *ON_PAGE,
        kep(200, "a", alpha="v1.37"),
        kep(203, "stale", latest="v1.35", alpha="v1.35"),
        kep(205, "apps", "sig-apps", alpha="v1.37"),
    )
    on = {p for p, _ in ON_PAGE}
    assert [c.ident for c in find_candidates(s, on, sigs=["sig-apps"], shown_gates={})] == ["205"]
    assert [c.ident for c in find_candidates(s, on, sigs=["sig-node"], shown_gates={}, ignore=[200])] == []
    assert [(c.ident, c.reasons) for c in find_candidates(s, on, sigs=["sig-node"], shown_gates={}, releases=2)] == [
        ("200", ("new in v1.37",)),
        ("203", ("new in v1.35",)),
    ]


def test_a_shared_number_is_covered_only_for_the_kep_the_row_names():
    a, b = (
        kep(2133, "kubelet-credential-providers", alpha="v1.37"),
        kep(2133, "out-of-tree", "sig-cloud-provider", alpha="v1.37"),
    )
    got = find_candidates(snap(a, b), {a[0]}, sigs=["node", "cloud-provider"], shown_gates={})
    assert [c.ident for c in got] == ["2133-out-of-tree"]


# --- coverage ---------------------------------------------------------------------------------------------------

COVERAGE = """# Coverage

| 设计组 | 覆盖 SIG | 代表 KEP | 详解页 |
|---|---|---|---|
| Node core | node | 100, 101 | [[node]] |
| Cross \\| group | node + apps | KEP-100、[300-x](https://kep.k8s.io/300), 301-y; 等 | [[x]] |

| 类别 | KEP / feature | 当前处理 |
|---|---|---|
| 历史 | 999 | not a group table |
"""


def test_coverage_lists():
    cov = check_coverage("coverage.md", COVERAGE, [100, 101, 102])
    assert [(g.name, g.numbers, g.line) for g in cov.groups] == [
        ("Node core", (100, 101), 5),
        ("Cross | group", (100, 300, 301), 6),
    ]
    assert cov.not_in_any_group == (102,)
    assert cov.not_on_matrix == (300, 301)
    assert cov.in_several_groups == ((100, ("Node core", "Cross | group")),)
    assert cov.problems == (Problem("coverage.md", "line 6", "'等' in group 'Cross | group' names no KEP; skipped"),)
    assert cov.as_report() == {
        "page": "coverage.md",
        "checked": True,
        "groups": [{"name": "Node core", "keps": [100, 101]}, {"name": "Cross | group", "keps": [100, 300, 301]}],
        "not_in_any_group": [102],
        "not_on_matrix": [300, 301],
        "in_several_groups": [{"kep": 100, "groups": ["Node core", "Cross | group"]}],
    }


def test_coverage_header_aliases_are_configurable_and_a_page_without_the_table_says_so():
    text = "| Family | Members |\n|---|---|\n| Core | 7 8 |\n"
    groups, problems = parse_groups("c.md", text, {"group": ("Family",), "keps": ("Members",)})
    assert groups == [(("Core", (7, 8), 3, ((7, ""), (8, ""))))] and problems == []
    groups, problems = parse_groups("c.md", text)
    assert groups == []
    cov = check_coverage("c.md", text, [7, 9])
    assert (cov.groups, cov.not_in_any_group, cov.not_on_matrix, cov.problems) == ((), (), (), tuple(problems))
    assert problems == [
        Problem(
            "c.md",
            "",
            "no design-group table (a column headed '代表 KEP', "
            "'Representative KEPs', 'Representative KEP', 'KEPs'); coverage not checked",
        )
    ]
    assert split_items("[1-a](u), KEP-2；3") == ["1-a", "KEP-2", "3"]


# --- production list --------------------------------------------------------------------------------------------


def test_headings_and_tables():
    heads = find_headings("# A\n```\n# not a heading\n```\nB\n===\n\n## *C*  x\r\ntext\n")
    assert heads == [Heading(0, 1, "A"), Heading(4, 1, "B"), Heading(7, 2, "*C*  x")]
    assert heading_above(heads, 8) == "*C*  x" and heading_above(heads, 0) == ""
    assert same_heading("*C*  x", "c x") and not same_heading("C", "C2")


def test_not_production_only_in_configured_tables_with_upstream_status():
    s = snap(*ON_PAGE)
    page = parse_page("m.md", PAGE)
    assert not_production(page, s, ()) == []
    assert not_production(page, s, ("p0 landmark keps",)) == [
        Finding(
            "not-production",
            "101-withdrawn-one",
            "keps/sig-node/101-withdrawn-one/kep.yaml",
            "",
            "",
            page="m.md",
            line=8,
            table="P0 Landmark KEPs",
            status="withdrawn",
        )
    ]
    # upstream status wins over the cell: 100 withdrawn upstream, the row still says implementable
    s2 = snap(kep(100, "on-page", status="withdrawn"), *ON_PAGE[1:])
    assert [f.kep_id for f in not_production(page, s2, ("P0 Landmark KEPs", "P1 Foundation KEPs"))] == [
        "100-on-page",
        "101-withdrawn-one",
        "102-provisional-one",
    ]


def test_status_changes_out_of_production_are_called_out():
    changes = [
        Change("1", "m.md", 3, "status", "implementable", "withdrawn", "status", True, "p1"),
        Change("2", "m.md", 4, "status", "implementable", "implemented", "status", True, "p2"),
        Change("3", "m.md", 5, "stage", "alpha", "provisional", "stage", True, "p3"),
        Change("4", "m.md", 6, "status", "Provisional", "provisional", "status", True, "p4"),
    ]
    assert left_production(changes) == changes[:1]


# --- new rows ---------------------------------------------------------------------------------------------------


def _cands(s, on, **kw):
    return find_candidates(s, on, sigs=["node"], shown_gates={}, **kw)


def test_add_rows_fills_owned_cells_in_the_table_style():
    s = snap(
        *ON_PAGE,
        kep(200, "new-alpha", alpha="v1.37", beta="v1.38", gates=("B", "A")),
        kep(201, "ga-only", stage="stable", stable="1.37"),
    )
    lines = PAGE.split("\n")
    cands = _cands(s, {p for p, _ in ON_PAGE})
    assert add_rows("m.md", lines, "P0 Landmark KEPs", cands, 5, DEFAULT_ALIASES, "")[1] == []  # default: groups only
    out, added, problems = add_rows(
        "m.md",
        lines,
        "P0 Landmark KEPs",
        cands,
        5,
        DEFAULT_ALIASES,
        "https://github.com/kubernetes/enhancements",
        reasons=("new",),
    )
    assert problems == []
    assert (
        out
        == lines[:8]
        + [
            "| 201-ga-only |  | implementable / stable | - / - / v1.37 | - |  |",
            "| 200-new-alpha |  | implementable / alpha | v1.37 / v1.38 / - | `A`, `B` |  |",
        ]
        + lines[8:]
    )
    assert [(a.line, a.ident, a.cell) for a in added] == [(9, "201", "201-ga-only"), (10, "200", "200-new-alpha")]
    # the new rows parse as rows and agree with kep.yaml: a second diff changes nothing
    from bot.plan.diff import diff_page

    diff = diff_page(parse_page("m.md", "\n".join(out)), s, gates_owned=True)
    assert [c for c in diff.changes if c.kep_id in ("200", "201")] == []


@pytest.mark.parametrize(
    "cell, expected",
    [
        ("KEP-100", "KEP-201"),
        ("100", "201"),
        ("**100-on-page**", "201-ga-only"),  # one row in bold: a human mark of that row, not the table's style
        ("[100-on-page](https://kep.k8s.io/100)", "[201-ga-only](https://kep.k8s.io/201)"),
        (
            "[100-on-page](https://github.com/kubernetes/enhancements/tree/master/keps/sig-node/100-on-page)",
            "[201-ga-only](https://github.com/kubernetes/enhancements/tree/master/keps/sig-node/201-ga-only)",
        ),
        (
            "[100-on-page](notes/100-on-page.md)",  # a page of the wiki itself
            "[201-ga-only](https://github.com/kubernetes/enhancements/tree/master/keps/sig-node/201-ga-only)",
        ),
    ],
)
def test_add_rows_kep_cell_style(cell, expected):
    s = snap(*ON_PAGE, kep(201, "ga-only", stage="stable", stable="v1.37"))
    page = PAGE.replace("| 100-on-page |", f"| {cell} |")
    out, added, _ = add_rows(
        "m.md",
        page.split("\n"),
        "P0 Landmark KEPs",
        _cands(s, {p for p, _ in ON_PAGE}),
        1,
        DEFAULT_ALIASES,
        "https://github.com/kubernetes/enhancements",
        reasons=("new",),
    )
    assert added[0].cell == expected
    assert out[added[0].line - 1].startswith(f"| {expected} |")


def test_add_rows_keeps_crlf_drops_v_and_skips_untrusted_values():
    page = (
        "## T\r\n\r\n| KEP | Status | Stage | Alpha | Beta | GA |\r\n|---|---|---|---|---|---|\r\n"
        "| 100 | implementable | alpha | 1.37 | - | - |\r\n"
    )
    s = snap(
        *ON_PAGE,
        kep(200, "bad-status", status="imlpemented", alpha="v1.37"),
        kep(201, "good", alpha="v1.37", beta="v1.38"),
        kep(202, "bad-ms", latest="v1.36", alpha="v1.21, v1.37"),
    )
    cands = _cands(s, {ON_PAGE[0][0]}, ignore=[101, 102])
    assert [c.ident for c in cands] == ["201", "202", "200"]  # an invalid status ranks lower
    out, added, problems = add_rows("m.md", page.split("\n"), "T", cands, 5, DEFAULT_ALIASES, "", reasons=("new",))
    assert out[5] == "| 201 | implementable | alpha | 1.37 | 1.38 | - |\r"
    assert [a.ident for a in added] == ["201"]
    assert problems == [
        Problem(
            "m.md",
            "candidates.add_to",
            "KEP 202: kep.yaml milestone.alpha 'v1.21, v1.37' is not a milestone; no row added",
        ),
        Problem(
            "m.md", "candidates.add_to", "KEP 200: kep.yaml status 'imlpemented' is not a valid status; no row added"
        ),
    ]
    out, added, problems = add_rows("m.md", page.split("\n"), "Nope", cands, 5, DEFAULT_ALIASES, "", ("new",))
    assert (out, added) == (page.split("\n"), [])
    assert problems == [
        Problem("m.md", "candidates.add_to.table", "no KEP table under the heading 'Nope'; no rows added")
    ]


# --- the stage --------------------------------------------------------------------------------------------------


def test_track_puts_it_together():
    s = snap(*ON_PAGE, kep(200, "new-alpha", alpha="v1.37"), kep(300, "grouped", "sig-apps", latest="v1.1"))
    page = parse_page("m.md", PAGE)
    changes = [Change("100", "m.md", 7, "status", "implementable", "withdrawn", "status", True, ON_PAGE[0][0])]
    opts = Options(
        add_page="./m.md",
        add_table="P0 Landmark KEPs",
        add_count=1,
        production_tables=("P0 Landmark KEPs", "Missing table"),
    )
    t = track(s, [page], changes, {"m.md": page.lines}, opts, ("c.md", COVERAGE))
    assert [c.ident for c in t.candidates] == ["300", "200"]
    assert t.candidates[0].reasons == ('in design group "Cross | group"',)
    assert t.coverage.not_on_matrix == (300, 301) and t.coverage.not_in_any_group == (102,)
    assert [f.kep_id for f in t.findings] == ["101-withdrawn-one"]
    assert t.left_production == changes
    assert t.changes == [
        Change("300", "m.md", 9, "row", "", "300-grouped", "added", True, "keps/sig-apps/300-grouped/kep.yaml")
    ]
    assert t.lines["m.md"][8] == "| 300-grouped |  | implementable / alpha | - / - / - | - |  |"
    assert (
        Problem("production_tables", "", "no KEP table under a heading 'Missing table'; check the spelling")
        in t.problems
    )


# --- changelog sections and report keys -------------------------------------------------------------------------


def test_changelog_sections_and_report_keys():
    from bot.plan.tracking import render

    s = snap(
        *ON_PAGE,
        kep(200, "new-alpha", alpha="v1.37", beta="1.38", gates=("B",)),
        kep(201, "b", alpha="v1.37"),
        kep(202, "c", alpha="v1.37"),
    )
    page = parse_page("m.md", PAGE)
    left = Change("100", "m.md", 7, "status", "implementable", "withdrawn", "status", False, ON_PAGE[0][0])
    t = track(
        s, [page], [left], {"m.md": page.lines}, Options(production_tables=("P0 Landmark KEPs",)), ("c.md", COVERAGE)
    )
    assert render.callouts(t) == [
        (
            ["### Now provisional or withdrawn", ""],
            [
                "- KEP [100](https://kep.k8s.io/100) (m.md:7): status implementable → **withdrawn** (not applied); "
                "rule 3: no longer production capability"
            ],
            "status callouts",
        )
    ]
    findings, candidates, coverage = render.sections(t, REV, "https://github.com/kubernetes/enhancements", limit=2)
    assert findings[1] == ["| [101-withdrawn-one](https://kep.k8s.io/101) | m.md:8 | P0 Landmark KEPs | withdrawn |"]
    assert candidates[0][2] == "3 KEPs upstream have no row but look like what the pages track; most likely first."
    assert candidates[1] == [
        "| [202](https://kep.k8s.io/202) | Title of c | sig-node | implementable / alpha | v1.37 | v1.37 / - / - | - | "
        f"new in v1.37 | [kep.yaml](https://github.com/kubernetes/enhancements/blob/{REV}/keps/sig-node/202-c/kep.yaml) |",
        "| [201](https://kep.k8s.io/201) | Title of b | sig-node | implementable / alpha | v1.37 | v1.37 / - / - | - | "
        f"new in v1.37 | [kep.yaml](https://github.com/kubernetes/enhancements/blob/{REV}/keps/sig-node/201-b/kep.yaml) |",
        "",
        "_1 more in the JSON report (`candidates`)._",
    ]
    assert coverage == (
        ["### Design-group coverage (c.md)", ""],
        [
            "- Rows in no design group (1): 102",
            "- In a design group, no row (2): 300, 301",
            "- In several groups (allowed, listed only): 100 (Node core, Cross \\| group)",
        ],
        "coverage lines",
    )
    keys = render.report_keys(t, production=True)
    assert sorted(keys) == ["candidates", "coverage", "findings"]
    assert [c["kep"] for c in keys["candidates"]] == ["202", "201", "200"]
    assert keys["candidates"][2]["beta"] == "1.38"  # as kep.yaml writes it
    assert sorted(render.report_keys(t._replace(coverage=None))) == ["candidates"]


def test_with_only_rows_are_added_for_those_keps_only():
    s = snap(*ON_PAGE, kep(300, "grouped", "sig-apps"), kep(301, "y", "sig-apps"))
    page = parse_page("m.md", PAGE)
    opts = Options(add_page="m.md", add_table="P0 Landmark KEPs", add_count=5)
    t = track(s, [page], [], {"m.md": page.lines}, opts, ("c.md", COVERAGE), only={301})
    assert [c.ident for c in t.candidates] == ["301", "300"]
    assert [c.kep_id for c in t.changes] == ["301"]


def test_limit_0_leaves_the_candidates_to_the_report():
    from bot.plan.tracking import render

    s = snap(*ON_PAGE, kep(200, "a", alpha="v1.37"))
    page = parse_page("m.md", PAGE)
    t = track(s, [page], [], {"m.md": page.lines}, Options())
    assert render.sections(t, REV, "https://x", limit=0) == []
    assert [c["kep"] for c in render.report_keys(t)["candidates"]] == ["200"]


def test_a_new_row_in_an_aligned_table_keeps_the_column_widths():
    page = (
        "## T\n\n| KEP            | Status                | Alpha / Beta / GA     | Notes      |\n"
        "|----------------|-----------------------|-----------------------|------------|\n"
        "| 100-on-page    | implementable / alpha | v1.37 / -     / -     | human note |\n"
    )
    s = snap(kep(100, "on-page", alpha="v1.37"), kep(201, "ga", alpha="v1.36", beta="v1.37"))
    out, added, _ = add_rows(
        "m.md",
        page.split("\n"),
        "T",
        _cands(s, {"keps/sig-node/100-on-page/kep.yaml"}),
        5,
        DEFAULT_ALIASES,
        "",
        ("active", "new"),
    )
    assert out[5] == "| 201-ga         | implementable / alpha | v1.36 / v1.37 / -     |            |"
    assert len(out[5]) == len(out[4])


def _with(file: tuple[str, bytes], extra: str) -> tuple[str, bytes]:
    return file[0], file[1] + extra.encode()


@pytest.mark.parametrize(
    "entry",
    [
        '"/keps/sig-node/300-old"',
        "300-old",
        '"keps/sig-node/300-old/README.md"',
        '"https://github.com/kubernetes/enhancements/tree/master/keps/sig-node/300-old/"',
        '"300"',
        "KEP-300",
        '["/keps/sig-node/300-OLD"]',
    ],
)
def test_a_kep_another_kep_yaml_replaces_is_no_candidate(entry):
    old, new = kep(300, "old", alpha="v1.37"), kep(301, "new", alpha="v1.37")
    s = snap(old, _with(new, f"replaces:\n  - {entry}\n" if not entry.startswith("[") else f"replaces: {entry}\n"))
    assert [c.ident for c in _cands(s, set())] == ["301"]
    from bot.model.lineage import replaced

    assert replaced(s) == {old[0]: f"replaced by 301 ({new[0]} replaces {entry.strip('[]').strip(chr(34))!r})"}


@pytest.mark.parametrize(
    "entry",
    [
        '"https://github.com/kubernetes/enhancements/pull/300"',
        "n/a",
        "none",
        '"TBD"',
        '"/keps/sig-node/300-other-slug"',
        '"/keps/sig-storage/20200120-old.md"',
        "[]",
        '"kinflate # old name"',
        "{a: 300}",
    ],
)
def test_replaces_entries_that_name_no_kep_here_change_nothing(entry):
    old, new = kep(300, "old", alpha="v1.37"), kep(301, "new", alpha="v1.37")
    s = snap(old, _with(new, f"replaces: {entry}\nsuperseded-by:\n  - n/a\n"))
    assert [c.ident for c in _cands(s, set())] == ["301", "300"]


def test_a_kep_whose_superseded_by_names_another_kep_is_no_candidate():
    old, new = kep(300, "old", alpha="v1.37"), kep(301, "new", alpha="v1.37")
    s = snap(
        _with(old, 'superseded-by:\n  - "/keps/sig-node/301-new/"\n'),
        new,
        _with(kep(302, "self", alpha="v1.37"), "superseded-by: [302-self]\n"),
    )
    assert [c.ident for c in _cands(s, set())] == ["302", "301"]
