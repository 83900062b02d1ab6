"""Every way people name a KEP keys a row in a KEP column, and only there (bot/wiki/kepnames.py, bot/plan/diff.py)."""

from __future__ import annotations

import pytest

from bot.plan.diff import diff_page
from bot.wiki.kepnames import KepName, kep_name
from bot.wiki.matrix import parse_page

try:
    from tests.syncutil import kep, snapshot
except ImportError:  # pragma: no cover
    from syncutil import kep, snapshot

FORMS = [
    "4671",
    "4671-gang-scheduling",
    "KEP-4671",
    "KEP #4671",
    "#4671",
    "kubernetes/enhancements#4671",
    "https://kep.k8s.io/4671",
    "[KEP-4671](https://kep.k8s.io/4671)",
    "[Gang scheduling](https://github.com/kubernetes/enhancements/issues/4671)",
    "[#4671](https://github.com/kubernetes/enhancements/issues/4671)",
    "<https://github.com/kubernetes/enhancements/issues/4671>",
    "[tree](https://github.com/kubernetes/enhancements/tree/master/keps/sig-scheduling/4671-gang-scheduling)",
]
SNAP = snapshot(kep(4671, "gang-scheduling", status="implementable", stage="beta", alpha="v1.35", beta="v1.37"))


@pytest.mark.parametrize("cell", FORMS)
def test_a_row_keyed_by_any_form_is_synced_and_its_kep_cell_keeps_its_bytes(cell):
    page = f"| KEP | Status | Stage | Beta |\n|---|---|---|---|\n| {cell} | implementable | alpha | - |\n"
    diff = diff_page(parse_page("m.md", page), SNAP)
    assert [(c.field, c.old, c.new, c.applied) for c in diff.changes] == [
        ("stage", "alpha", "beta", True),
        ("beta", "", "v1.37", True),
    ]
    assert diff.lines[2] == f"| {cell} | implementable | beta | v1.37 |"
    assert diff.problems == []


@pytest.mark.parametrize(
    "cell",
    [
        "2026-01-20",
        "v1.30",
        "#12x",
        "kubernetes/kubernetes#4671",
        "https://github.com/kubernetes/enhancements/pull/4671",
        "[4671](https://github.com/kubernetes/kubernetes/pull/4671)",
        "[4671](https://github.com/kubernetes/kubernetes/discussions/4671)",
        "[#4671](https://github.com/kubernetes/kubernetes/blob/master/CHANGELOG.md)",
        "[4671](https://github.com/kubernetes/enhancements)",
        "[4671](HTTPS://GitHub.com/kubernetes/kubernetes/releases/tag/v1.30.0)",
        # another project's KEP 4671: the link's text says KEP, its target is not kubernetes/enhancements
        "[KEP-4671](https://github.com/kubernetes-sigs/kueue/tree/main/keps/4671-gang-scheduling)",
        "[KEP-4671](https://github.com/kubernetes-sigs/kueue/issues/4671)",
        "[4671-gang-scheduling](https://github.com/kubernetes-sigs/kueue/tree/main/keps/4671-gang-scheduling)",
        "[KEP-4671](https://github.com/kubernetes/enhancements-fork/issues/4671)",
        "[KEP-4671](//example.test/keps/4671)",
        "[KEP-4671](mailto:someone@example.test)",
        "[KEP-4671](www.example.test/kep/4671)",
        "https://github.com/kubernetes-sigs/kueue/tree/main/keps/sig-x/4671-gang-scheduling",
        "<https://example.test/keps/sig-scheduling/4671-gang-scheduling>",
        "kubernetes-sigs/kueue#4671",
        "[KEP-4671](https://github.com/kubernetes-sigs/kueue/issues/4671) (moved)",
        '<a href="https://github.com/kubernetes-sigs/kueue/issues/4671">KEP-4671</a>',
    ],
)
def test_a_kep_cell_naming_something_else_leaves_its_row_as_is_with_a_problem(cell):
    page = f"| KEP | Status | Stage | Beta |\n|---|---|---|---|\n| {cell} | implementable | alpha | - |\n"
    diff = diff_page(parse_page("m.md", page), SNAP)
    assert (diff.changes, diff.lines[2]) == ([], f"| {cell} | implementable | alpha | - |")
    assert [(p.key, p.message) for p in diff.problems] == [("line 3", f"KEP cell {cell!r} names no KEP; left as is")]


@pytest.mark.parametrize(
    "cell",
    [
        "[KEP-4671](#gang-scheduling)",
        "[KEP-4671](gang.md)",
        "[KEP-4671](https://github.com/kubernetes/enhancements/pull/4672)",
        "[KEP-4671](HTTPS://WWW.GitHub.com/Kubernetes/Enhancements/issues/4671)",
        "[KEP-4671](https://raw.githubusercontent.com/kubernetes/enhancements/master/keps/sig-scheduling/4671-gang-scheduling/README.md)",
        "[KEP-4671](https://kep.k8s.io:443/4671)",
    ],
)
def test_a_link_into_kubernetes_enhancements_or_the_wiki_itself_keys_its_row(cell):
    assert kep_name(cell) is not None and kep_name(cell).number == 4671
    page = f"| KEP | Status | Stage | Beta |\n|---|---|---|---|\n| {cell} | implementable | alpha | - |\n"
    diff = diff_page(parse_page("m.md", page), SNAP)
    assert [(c.field, c.new) for c in diff.changes] == [("stage", "beta"), ("beta", "v1.37")]


def test_a_row_keyed_by_another_projects_kep_link_is_no_kep_row_even_when_it_cannot_be_read():
    """A cell that starts with a link elsewhere names no KEP for the rows left as is either (the watch, the
    candidates and the coverage count those), while a link into kubernetes/enhancements still does."""
    kueue = "[KEP-4671](https://github.com/kubernetes-sigs/kueue/issues/4671)"
    ours = "[KEP-4671](https://github.com/kubernetes/enhancements/issues/4671)"
    page = (
        "| KEP | Status | Stage |\n|---|---|---|\n"
        f"| {kueue} (moved) | implementable | alpha |\n"
        f"| **{kueue}** | implementable / x | alpha |\n"
        f"| {ours} (moved) | implementable | alpha |\n"
        "| see https://github.com/kubernetes-sigs/kueue/tree/main/keps/sig-a/4671-x | implementable | alpha |\n"
        "| see https://github.com/kubernetes/enhancements/tree/master/keps/sig-a/4672-y | implementable | alpha |\n"
    )
    parsed = parse_page("m.md", page)
    assert [(r.line, r.number, r.slug) for r in parsed.left] == [(4, 4671, ""), (6, 4672, "y")]
    assert parsed.rows == []


def test_outside_the_kep_column_no_form_keys_a_row():
    notes = " ".join(FORMS[:7])
    page = (
        "| Date | Decision | Status | Stage |\n|---|---|---|---|\n"
        + "".join(f"| {f} | {f} | implementable | alpha |\n" for f in FORMS)
        + f"\n| Feature | Notes |\n|---|---|\n| x | {notes} |\n"
    )
    parsed = parse_page("m.md", page)
    assert (parsed.rows, parsed.left) == ([], ())
    diff = diff_page(parsed, SNAP)
    assert (diff.changes, diff.lines) == ([], page.split("\n"))


def test_bare_numbers_are_told_from_explicit_names():
    assert [kep_name(c) for c in ("4671", "#4671", "KEP-4671", "4671-x", "kep.k8s.io/4671")] == [
        KepName(4671, "", True),
        KepName(4671, "", True),
        KepName(4671, "", False),
        KepName(4671, "x", False),
        KepName(4671, "", False),
    ]


def test_a_reference_link_is_judged_by_its_definition_on_the_page():
    """``[KEP-1136][kueue]`` with ``[kueue]: https://github.com/kubernetes-sigs/...`` below the table is the same
    foreign link written inline: its row is left as is and listed; a reference into kep.k8s.io still keys."""
    page = (
        "| KEP | Status | Stage | Beta |\n|---|---|---|---|\n"
        "| [KEP-4671][kueue] | implementable | alpha | - |\n"
        "| **[KEP-4671][]** | implementable | alpha | - |\n"
        "| [KEP-4671] (moved) | implementable | alpha | - |\n"
        "| [KEP-4671][ours] | implementable | alpha | - |\n"
        "\n[kueue]: https://github.com/kubernetes-sigs/kueue/issues/4671\n"
        '> [kep-4671]:  <https://github.com/kubernetes-sigs/kueue/tree/main/keps/4671-x> "kueue"\n'
        "[ours]: https://kep.k8s.io/4671\n"
    )
    parsed = parse_page("m.md", page)
    assert [(r.line, r.number) for r in parsed.rows] == [(5, 4671)] and parsed.left == ()
    assert [(p.key, p.message) for p in parsed.problems] == [
        ("line 3", "KEP cell '[KEP-4671][kueue]' names no KEP; left as is"),
        ("line 4", "KEP cell '**[KEP-4671][]**' names no KEP; left as is"),
        ("line 5", "KEP cell '[KEP-4671] (moved)' names no KEP; left as is"),
    ]
    diff = diff_page(parsed, SNAP)
    assert [c.line for c in diff.changes] == [6, 6] and diff.lines[2:5] == page.split("\n")[2:5]
