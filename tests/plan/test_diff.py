"""Rows vs kep.yaml: Change kinds, owned cells, untrusted values, duplicate numbers (bot/plan/diff.py)."""

from __future__ import annotations

import pytest

from bot.model.kep import Problem
from bot.plan.diff import Change, diff_page, kep_id
from bot.wiki.matrix import parse_page

try:
    from tests.syncutil import PAGE, PAGE_KEPS, PAGE_SYNCED, kep, snapshot
except ImportError:  # pragma: no cover
    from syncutil import PAGE, PAGE_KEPS, PAGE_SYNCED, kep, snapshot

HEADER = "| KEP | 状态 | Alpha / Beta / GA | Feature gate | 说明 |\n|---|---|---|---|---|\n"
P = "keps/sig-scheduling/{}/kep.yaml"


def run(rows: str, *keps, gates_owned: bool = False, only=None, header: str = HEADER):
    """Diff a one-table page; returns (PageDiff, old lines)."""
    page = parse_page("p.md", header + rows)
    return diff_page(page, snapshot(*keps), gates_owned=gates_owned, only=only), page.lines


def changed_lines(diff, old):
    return {i: line for i, line in enumerate(diff.lines) if line != old[i]}


def test_unchanged_row_gives_nothing():
    diff, old = run("| 1-a | implementable / alpha | v1.35 / - / - | `G` | x |\n", kep(1, "a", gates=("G",)))
    assert diff.changes == [] and diff.problems == [] and diff.lines == old
    assert [k.number for k in diff.keps] == [1]


def test_promotion_and_retarget_rewrite_only_owned_parts():
    diff, old = run(
        "| 1-a | implementable / alpha | v1.35 / - / - | `G` | 组 \\| x |\n",
        kep(1, "a", stage="beta", beta="v1.37", stable="v1.39", gates=("G",), latest="v1.37"),
    )
    path = P.format("1-a")
    assert [c._replace(written=None) for c in diff.changes] == [
        Change("1", "p.md", 3, "stage", "alpha", "beta", "promoted", True, path),
        Change("1", "p.md", 3, "beta", "", "v1.37", "retargeted", True, path),
        Change("1", "p.md", 3, "stable", "", "v1.39", "retargeted", True, path),
    ]
    assert changed_lines(diff, old) == {2: "| 1-a | implementable / beta | v1.35 / v1.37 / v1.39 | `G` | 组 \\| x |"}


@pytest.mark.parametrize(
    "page, upstream, kind",
    [
        ("alpha", "beta", "promoted"),
        ("alpha", "stable", "promoted"),
        ("stable", "beta", "demoted"),
        ("beta", "deprecated", "stage"),
        ("-", "alpha", "stage"),
    ],
)
def test_stage_kinds(page, upstream, kind):
    diff, _ = run(f"| 1 | implementable / {page} | v1.35 / - / - | - | x |\n", kep(1, "a", stage=upstream))
    assert [(c.field, c.old, c.new, c.kind) for c in diff.changes] == [
        ("stage", "" if page == "-" else page, upstream, kind)
    ]


def test_status_change():
    diff, old = run(
        "| 1 | implementable / stable | v1.35 / - / - | - | x |\n", kep(1, "a", status="implemented", stage="stable")
    )
    assert [(c.field, c.old, c.new, c.kind) for c in diff.changes] == [
        ("status", "implementable", "implemented", "status")
    ]
    assert changed_lines(diff, old) == {2: "| 1 | implemented / stable | v1.35 / - / - | - | x |"}


def test_milestones_compare_after_normalisation_and_keep_the_page_style():
    rows = (
        "| 1 | implementable / alpha | 1.30 / - / - | - | x |\n"
        "| 2 | implementable / alpha | 1.29 / - / - | - | x |\n"
        "| 3 | implementable / alpha | v1.29 / - / - | - | x |\n"
    )
    diff, old = run(rows, kep(1, "a", alpha="v1.30"), kep(2, "b", alpha="v1.30"), kep(3, "c", alpha="1.30"))
    assert [(c.kep_id, c.field, c.old, c.new) for c in diff.changes] == [
        ("2", "alpha", "1.29", "1.30"),
        ("3", "alpha", "v1.29", "v1.30"),
    ]  # new: as the cell will show it
    assert changed_lines(diff, old) == {
        3: "| 2 | implementable / alpha | 1.30 / - / - | - | x |",
        4: "| 3 | implementable / alpha | v1.30 / - / - | - | x |",
    }


@pytest.mark.parametrize(
    "shown, upstream, written",
    [
        ("TBD", "", None),
        ("-", "0.0", None),
        ("x.y", "x.y", None),
        ("-", "TBD", None),
        ("TBD", "v1.37", "v1.37"),
        ("v1.38", "", "-"),
    ],
)
def test_placeholder_milestones(shown, upstream, written):
    diff, old = run(f"| 1 | implementable / alpha | v1.35 / - / {shown} | - | x |\n", kep(1, "a", stable=upstream))
    expected = {} if written is None else {2: f"| 1 | implementable / alpha | v1.35 / - / {written} | - | x |"}
    assert changed_lines(diff, old) == expected
    assert diff.problems == []


@pytest.mark.parametrize("upstream", ["TBD", "tbd", "x.y", "0.0", "never"])
def test_a_placeholder_upstream_never_overwrites_a_milestone(upstream):
    diff, old = run(
        "| 1 | implementable / beta | v1.20 / v1.29 / - | - | x |\n",
        kep(1, "a", stage="beta", alpha="v1.20", beta=upstream),
    )
    assert (diff.changes, diff.lines) == ([], old)
    assert [p.message for p in diff.problems] == [
        f"kep.yaml milestone.beta {upstream!r} is a placeholder, not a milestone; beta cell kept "
        "(keps/sig-scheduling/1-a/kep.yaml)"
    ]


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"status": "imlpemented"}, "kep.yaml status 'imlpemented' is not a valid status; status cell kept"),
        (
            {"status": "implemented (alpha)"},
            "kep.yaml status 'implemented (alpha)' is not a valid status; status cell kept",
        ),
        ({"stage": ""}, "kep.yaml stage '' is not a valid stage; stage cell kept"),
        ({"stage": "alpha (deprecated)"}, "kep.yaml stage 'alpha (deprecated)' is not a valid stage; stage cell kept"),
        ({"beta": "v1.21, v1.37"}, "kep.yaml milestone.beta 'v1.21, v1.37' is not a milestone; beta cell kept"),
        ({"beta": "soon"}, "kep.yaml milestone.beta 'soon' is not a milestone; beta cell kept"),
    ],
)
def test_untrusted_upstream_values_are_never_written(fields, message):
    diff, old = run(
        "| 1-a | implementable / beta | v1.35 / v1.36 / - | - | x |\n",
        kep(1, "a", **{"stage": "beta", "beta": "v1.36", **fields}),
    )
    assert diff.lines == old
    assert diff.changes == []
    assert diff.problems == [Problem("p.md", "line 3", f"{message} ({P.format('1-a')})")]


def test_feature_gate_drift_is_report_only_by_default():
    row = "| 1 | implementable / alpha | v1.35 / - / - | `Old`, `Shared` | x |\n"
    upstream = kep(1, "a", gates=("Shared", "New", "n/a"))
    diff, old = run(row, upstream)
    assert diff.lines == old
    assert diff.changes == [
        Change("1", "p.md", 3, "feature_gates", "Old, Shared", "New, Shared", "gates", False, P.format("1-a"))
    ]
    owned, _ = run(row, upstream, gates_owned=True)
    assert owned.changes == [diff.changes[0]._replace(applied=True)]
    assert changed_lines(owned, old) == {2: "| 1 | implementable / alpha | v1.35 / - / - | `New`, `Shared` | x |"}


@pytest.mark.parametrize("bad", ["Foo|Bar", "Bad Gate", "x-y"])
def test_a_rejected_gate_name_withholds_the_owned_gate_cell_and_is_reported(bad):
    row = "| 1 | implementable / alpha | v1.35 / - / - | `Old` | x |\n"
    upstream = kep(1, "a", gates=("GoodGate", bad))
    diff, old = run(row, upstream, gates_owned=True)
    assert diff.lines == old and diff.changes == []
    assert diff.problems == [
        Problem(
            "p.md",
            "line 3",
            "feature_gates kept: feature-gates[1].name in kep.yaml is not a "
            f"feature gate name ({bad!r}), so the list is not trusted "
            f"({P.format('1-a')})",
        )
    ]


@pytest.mark.parametrize("quote", ["> ", ">", "> > ", "   > "])
def test_a_table_without_outer_pipes_in_a_blockquote_is_read_and_synced(quote):
    header = f"{quote}KEP | 状态 | Alpha / Beta / GA\n{quote}---|---|---\n"
    diff, old = run(
        f"{quote}1-a | implementable / alpha | v1.35 / - / -\n", kep(1, "a", stage="beta", beta="v1.36"), header=header
    )
    assert [(c.field, c.old, c.new) for c in diff.changes] == [("stage", "alpha", "beta"), ("beta", "", "v1.36")]
    assert changed_lines(diff, old) == {2: f"{quote}1-a | implementable / beta | v1.35 / v1.36 / -"}


def test_gate_placeholders_on_both_sides_are_equal():
    diff, _ = run("| 1 | implementable / alpha | v1.35 / - / - | NA | x |\n", kep(1, "a", gates=("NA",)))
    assert diff.changes == []


def test_missing_upstream_is_reported_never_deleted():
    diff, old = run("| 9999-gone | implemented / stable | v1.1 / v1.2 / v1.3 | - | x |\n", kep(1, "a"))
    assert diff.lines == old
    assert diff.changes == [Change("9999-gone", "p.md", 3, "status", "implemented", "", "missing-upstream", False, "")]


def test_duplicate_numbers_resolved_by_slug():
    keps = (
        kep(2133, "kubelet-credential-providers", sig="sig-node", stage="stable"),
        kep(2133, "out-of-tree-credential-provider", sig="sig-cloud-provider", stage="beta"),
        kep(0, "kep-process", sig="sig-architecture", status="implemented", stage="stable"),
        kep(0, "community-forum", sig="sig-contributor-experience"),
    )
    rows = (
        "| 2133-kubelet-credential-providers | implementable / alpha | v1.35 / - / - | - | x |\n"
        "| [0000-kep-process](#kep-process) | implementable / alpha | v1.35 / - / - | - | x |\n"
    )
    diff, old = run(rows, *keps)
    assert [(c.kep_id, c.field, c.new, c.kep_path) for c in diff.changes] == [
        (
            "2133-kubelet-credential-providers",
            "stage",
            "stable",
            "keps/sig-node/2133-kubelet-credential-providers/kep.yaml",
        ),
        ("0000-kep-process", "status", "implemented", "keps/sig-architecture/0000-kep-process/kep.yaml"),
        ("0000-kep-process", "stage", "stable", "keps/sig-architecture/0000-kep-process/kep.yaml"),
    ]
    assert diff.problems == []


@pytest.mark.parametrize(
    ("cell", "named", "fix"),
    [
        ("2133", "2133", "add the slug to the KEP cell"),
        ("KEP-2133", "2133", "add the slug to the KEP cell"),
        ("2133-renamed-slug", "2133-renamed-slug", "the slug 'renamed-slug' matches none of them"),
    ],
)
def test_ambiguous_rows_are_reported_and_left_byte_identical(cell, named, fix):
    keps = (
        kep(2133, "kubelet-credential-providers", sig="sig-node", stage="stable"),
        kep(2133, "out-of-tree-credential-provider", sig="sig-cloud-provider", stage="beta"),
    )
    diff, old = run(f"| {cell} | implementable / alpha | v1.35 / - / - | - | x |\n", *keps)
    assert diff.lines == old and diff.changes == []
    assert diff.problems == [
        Problem(
            "p.md",
            "line 3",
            (
                f"KEP {named} is ambiguous upstream (keps/sig-cloud-provider/2133-out-of-tree-credential-provider/kep.yaml, "
                f"keps/sig-node/2133-kubelet-credential-providers/kep.yaml); {fix}; left as is"
            ),
        )
    ]


def test_a_slug_that_differs_from_upstream_leaves_the_row_as_is():
    diff, _ = run("| 1-old-name | implementable / alpha | v1.35 / - / - | - | x |\n", kep(1, "new-name", stage="beta"))
    assert diff.changes == [] and diff.lines == _
    assert diff.problems == [
        Problem(
            "p.md",
            "line 3",
            "row names KEP 1-old-name but upstream it is 1-new-name "
            "(keps/sig-scheduling/1-new-name/kep.yaml); left as is: "
            "fix the number or the slug",
        )
    ]


def test_status_and_stage_compare_ignoring_case():
    diff, old = run("| 1 | Implementable / Alpha | v1.35 / - / - | - | x |\n", kep(1, "a", stage="alpha"))
    assert diff.lines == old and diff.changes == []


def test_a_missing_kep_says_why_when_upstream_has_a_clue():
    from_yaml = kep(1884, "pod-resource-concrete-assigments", sig="sig-node")[1]
    snap = snapshot(
        ("keps/sig-node/2043-pod-resource-concrete-assigments/kep.yaml", from_yaml),
        ("keps/sig-x/9003-baz/kep.yaml", b"title: [unclosed\n"),
    )
    page = parse_page(
        "p.md",
        HEADER + "| 1884 | implementable / alpha | v1.35 / - / - | - | x |\n"
        "| 9003-baz | implementable / alpha | v1.35 / - / - | - | x |\n",
    )
    diff = diff_page(page, snap)
    assert [(c.kep_id, c.kind, c.applied) for c in diff.changes] == [("1884", "missing-upstream", False)]
    assert diff.problems == [
        Problem(
            "p.md",
            "line 3",
            "KEP 1884: keps/sig-node/2043-pod-resource-concrete-assigments/kep.yaml declares "
            "kep-number 1884 (its directory says 2043)",
        ),
        Problem(
            "p.md",
            "line 4",
            "KEP 9003-baz: keps/sig-x/9003-baz/kep.yaml cannot be read (not valid YAML at "
            "line 2: did not find expected ',' or ']'); row kept",
        ),
    ]


def test_kep_id():
    snap = snapshot(kep(1, "a"), kep(2, "b"), kep(2, "c", sig="sig-node"))
    assert [kep_id(snap, k) for k in snap.all_keps()] == ["1", "2-c", "2-b"]  # by path


def test_only_limits_the_rows_considered():
    rows = (
        "| 1 | implementable / alpha | v1.35 / - / - | - | x |\n| 2 | implementable / alpha | v1.35 / - / - | - | x |\n"
    )
    diff, _ = run(rows, kep(1, "a", stage="beta"), kep(2, "b", stage="beta"), only={2})
    assert [c.kep_id for c in diff.changes] == ["2"]


def test_unparseable_rows_pass_through_as_problems():
    rows = "| 1 | implementable / alpha |\n| nope | implementable / alpha | v1 / - / - | - | x |\n"
    diff, old = run(rows, kep(1, "a", stage="beta"))
    assert diff.lines == old and diff.changes == []
    assert [p.key for p in diff.problems] == ["line 3", "line 4"]


def test_whole_page_only_rewritten_rows_differ():
    page = parse_page("m.md", PAGE)
    diff = diff_page(page, snapshot(*PAGE_KEPS))
    assert "\n".join(diff.lines) == PAGE_SYNCED
    assert "\n".join(diff.lines).count("\n") == PAGE.count("\n")


def test_a_capitalised_stage_on_the_page_still_counts_as_a_graduation():
    diff, _ = run("| 1 | implementable / Alpha | v1.35 / - / - | - | x |\n", kep(1, "a", stage="beta"))
    assert [(c.field, c.old, c.new, c.kind) for c in diff.changes] == [("stage", "Alpha", "beta", "promoted")]


def test_a_bare_gate_name_with_an_underscore_is_read_from_the_cell():
    diff, _ = run("| 1 | implementable / alpha | v1.35 / - / - | Foo_Bar | x |\n", kep(1, "a", gates=("Foo_Bar",)))
    assert diff.changes == []
