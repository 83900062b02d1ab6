"""Changelog markdown, commit message and JSON report (bot/plan/changelog/body.py)."""

from __future__ import annotations

import json
import re

import pytest
from markdown_it import MarkdownIt

from bot.model.kep import Problem
from bot.model.snapshot import Snapshot
from bot.plan.changelog.body import ChangelogInputs, render, report, summary, visible_lines
from bot.plan.changelog.markdown import kep_yaml_url, safe
from bot.plan.diff import Change

REV = "0123456789abcdef0123456789abcdef01234567"
SNAP = Snapshot("github:kubernetes/enhancements@master", REV, {}, {}, ())
K1 = "keps/sig-scheduling/4671-gang-scheduling/kep.yaml"
CHANGES = [
    Change("4671", "m.md", 32, "stage", "alpha", "beta", "promoted", True, K1),
    Change("4671", "m.md", 32, "beta", "", "v1.37", "retargeted", True, K1),
    Change("5055", "m.md", 75, "stage", "stable", "beta", "demoted", True, "keps/sig-scheduling/5055-x/kep.yaml"),
    Change(
        "3695", "m.md", 89, "status", "implementable", "implemented", "status", True, "keps/sig-node/3695-y/kep.yaml"
    ),
    Change("2837", "m.md", 86, "feature_gates", "A", "A, B", "gates", False, "keps/sig-node/2837-z/kep.yaml"),
    Change("9999-gone", "m.md", 90, "status", "implemented", "", "missing-upstream", False, ""),
]
PROBLEMS = [Problem("m.md", "line 40", "KEP cell 'x' names no KEP; left as is")]
INVOLVED = [Problem(K1, "creation-date", "'2025-30-01' is not a valid date (YYYY-MM-DD)")]
MD = MarkdownIt("commonmark").enable("table")


def test_summary_counts_applied_changes_by_kind_in_order():
    assert summary(CHANGES) == "4 changes in 3 KEPs (1 promoted, 1 demoted, 1 status change, 1 retargeted)"
    assert summary(CHANGES[:1]) == "1 change in 1 KEP (1 promoted)"
    assert summary([]) == "0 changes in 0 KEPs"


def test_body_layout():
    log = render(SNAP, CHANGES, PROBLEMS, ChangelogInputs(involved_problems=INVOLVED))
    assert log.title == (
        "Update KEP matrix: 4 changes in 3 KEPs (1 promoted, 1 demoted, 1 status change, 1 retargeted)"
    )
    url = f"https://github.com/kubernetes/enhancements/blob/{REV}/{K1}"
    assert log.body.splitlines()[:11] == [
        f"**kep-sync**: {summary(CHANGES)}, from kubernetes/enhancements at `0123456789ab`.",
        "",
        "### Graduations",
        "- alpha → **beta**: [4671](https://kep.k8s.io/4671)",
        "",
        "### Demotions",
        "- stable → **beta**: [5055](https://kep.k8s.io/5055)",
        "",
        "### Changes",
        "| KEP | m.md | Change | kep.yaml |",  # one page: its name heads the column, each cell a line
        "|---|---|---|---|",
    ]
    # one table row per page row, its fields together
    assert (
        f"| [4671](https://kep.k8s.io/4671) | L32 | stage: alpha → **beta**<br>beta: - → **v1.37** | "
        f"[kep.yaml]({url}) |" in log.body
    )
    assert "| [2837](https://kep.k8s.io/2837) | m.md:86 | feature_gates: page shows A, kep.yaml says A, B |" in log.body
    assert (
        "| [9999-gone](https://kep.k8s.io/9999) | m.md:90 | no kep.yaml upstream has this number (row shows status implemented); row kept |"
        in log.body
    )
    assert f"| {K1} | creation-date | '2025-30-01' is not a valid date (YYYY-MM-DD) |" in log.body
    # a row this pull request does not change, left as is: listed all the same, never left out silently
    assert "| m.md | line 40 | KEP cell 'x' names no KEP; left as is |" in log.body
    assert [line for line in log.body.splitlines() if line.startswith(("### ", "<details>"))] == [
        "### Graduations",
        "### Demotions",
        "### Changes",
        "<details><summary>Report only (not applied) (2)</summary>",
        "<details><summary>Problems (2)</summary>",
    ]
    assert log.body.count("</details>") == 2 and log.body.endswith("</details>\n") and "\n\n\n" not in log.body
    assert visible_lines(log.body) == 17


def test_a_kep_with_two_rows_gets_one_graduation_line_per_stage_move_in_kep_yaml_words():
    k = "keps/sig-x/1010-x/kep.yaml"
    changes = [
        Change("1010", "page.md", 5, "stage", "BETA", "stable", "promoted", True, k),
        Change("1010", "page.md", 11, "stage", "ＧＡ", "beta", "demoted", True, k),
        Change("1010", "page.md", 11, "stable", "v1.30", "", "target-removed", True, k),
        Change("1010", "page.md", 13, "stage", "Beta", "stable", "promoted", True, k),
        Change("1010", "other.md", 2, "stage", "beta", "stable", "promoted", True, k),
        Change("7", "page.md", 20, "stage", "GA", "beta", "demoted", True, "keps/sig-x/7-y/kep.yaml"),
        Change("8", "page.md", 21, "stage", "alpha", "beta", "promoted", True, "keps/sig-x/8-y/kep.yaml"),
    ]
    body = render(SNAP, changes, []).body
    assert body.split("### Graduations\n", 1)[1].split("\n\n", 1)[0].split("\n") == [
        "- beta → **stable**: [1010](https://kep.k8s.io/1010)",
        "- alpha → **beta**: [8](https://kep.k8s.io/8)",
    ]
    assert body.split("### Demotions\n", 1)[1].split("\n\n", 1)[0].split("\n") == [
        "- stable → **beta**: [1010](https://kep.k8s.io/1010), [7](https://kep.k8s.io/7)"
    ]


def test_commit_message():
    msg = render(SNAP, CHANGES, []).commit_message
    assert msg.splitlines()[2:4] == ["- KEP-4671 stage: alpha -> beta", "- KEP-4671 beta: - -> v1.37"]
    assert msg.endswith(f"\n\nSource: kubernetes/enhancements@{REV}\n")


def test_no_changes():
    log = render(SNAP, [], [])
    assert log.title == "KEP matrix: no changes"
    assert log.body == "**kep-sync**: 0 changes in 0 KEPs, from kubernetes/enhancements at `0123456789ab`.\n"
    assert render(SNAP._replace(revision=""), [], []).body.endswith("at `working tree`.\n")


def test_same_input_same_bytes():
    a = render(SNAP, CHANGES, PROBLEMS, ChangelogInputs(involved_problems=INVOLVED))
    b = render(SNAP, list(CHANGES), list(PROBLEMS), ChangelogInputs(involved_problems=list(INVOLVED)))
    assert a == b
    assert json.dumps(report(SNAP, CHANGES, PROBLEMS)) == json.dumps(report(SNAP, CHANGES, PROBLEMS))


def _text_outside_code(markdown: str) -> list[str]:
    """Every text run GitHub would scan for @mentions (code spans and code blocks excluded)."""
    out = []
    for tok in MD.parse(markdown):
        for child in tok.children or ():
            if child.type == "text":
                out.append(child.content)
    return out


@pytest.mark.parametrize("value", ["@alice", "hi @org/team", "`x @bob`", "``@carol``", "(@dave)", "**@erin**"])
def test_handles_are_never_emitted_raw(value):
    change = Change("1", f"p{value}.md", 3, "status", value, "implemented", "status", True, "keps/sig-x/1-a/kep.yaml")
    problem = Problem("keps/sig-x/1-a/kep.yaml", "status", f"{value!r} is not a valid status")
    log = render(SNAP, [change], [problem])
    for text in (log.body, log.commit_message):
        assert not [t for t in _text_outside_code(text) if re.search(r"(?<![\w/])@[A-Za-z0-9]", t)], text


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("@alice", "`@alice`"),
        ("hi @org/team!", "hi `@org/team`!"),
        ("(@dave) and **@erin**", "(`@dave`) and **`@erin`**"),
        ("`x @bob` stays in its span", "`x @bob` stays in its span"),
        ("``a ` @c`` then @d", "``a ` @c`` then `@d`"),
        ("stray ` tick @bob", "stray ` tick @\u200bbob"),
        ("mail a@b.example", "mail a@b.example"),
        ("authors: @jane.doe, @a-b.c", "authors: `@jane.doe`, `@a-b.c`"),
        ("thanks @jane.", "thanks `@jane`."),
        ("see @org/team.name.", "see `@org/team.name`."),
    ],
)
def test_safe_wraps_handles_in_code_spans(raw, expected):
    assert safe(raw) == expected


def test_pipes_and_newlines_are_escaped_in_table_cells():
    change = Change("1", "a|b.md", 3, "status", "x | y", "implemented", "status", True, "k")
    problem = Problem("p|q", "k|ey", "bad\nvalue | here")
    body = render(SNAP._replace(revision=""), [change], [problem]).body
    assert "| KEP | a\\|b.md | Change | kep.yaml |" in body
    assert "| [1](https://kep.k8s.io/1) | L3 | status: x \\| y → **implemented** | k |" in body
    assert "| p\\|q | k\\|ey | bad value \\| here |" in body
    rows = [line for line in body.splitlines() if line.startswith("| ")]  # column count kept
    assert [len(re.findall(r"(?<!\\)\|", r)) for r in rows] == [5, 5, 4, 4], rows


def _many(n: int) -> list[Change]:
    return [
        Change(
            str(1000 + i), "m.md", i, "stage", "alpha", "beta", "promoted", True, f"keps/sig-x/{1000 + i}-x/kep.yaml"
        )
        for i in range(n)
    ]


@pytest.mark.parametrize("max_chars", [2000, 5000, 9999, 20000])
def test_body_is_cut_at_a_row_boundary_under_max_chars(max_chars):
    changes = _many(100) + [c._replace(kind="gates", applied=False) for c in _many(40)]
    problems = [Problem(f"keps/x/{i}/kep.yaml", "status", "odd " * 10) for i in range(60)]
    body = render(SNAP, changes, problems, ChangelogInputs(max_chars=max_chars)).body
    assert len(body) <= max_chars
    lines = body.splitlines()
    notes = [line for line in lines if "left out to keep this text short enough" in line]
    assert notes, "something must have been left out"
    assert notes[0].endswith("short enough for a pull request; see the JSON report._")
    # Every kept row is whole: each graduation and table row ends as rendered.
    assert all(line.endswith("|") for line in lines if line.startswith("| "))
    # Counts add up: kept + left out == total, per section (the one graduation line lists all 100 KEPs).
    left = {m.group(2): int(m.group(1)) for m in (re.match(r"_(\d+) more (\w+)", n) for n in notes)}
    kept = sum(1 for line in lines if line.startswith("| [1"))
    assert kept + left.get("changes", 0) == 100
    assert body.count("<details>") == body.count("</details>")


def test_a_changelog_over_the_limit_still_lists_every_row_left_as_is():
    """A row the bot could not write is never cut: routine rows go first (candidates, other problems), and the
    rows left as is stay, each whole, so the closing log line ("listed in the Problems section") stays true."""
    extra = (["### New KEPs to consider", "36 KEPs upstream are on no page.", ""], [f"- KEP {n} " + "x" * 60 for n in range(300)], "candidates")  # fmt: skip
    left = [Problem("m.md", f"line {n}", f"KEP cell 'k{n}' names no KEP; left as is") for n in (9, 10, 200)]
    routine = [Problem(f"keps/x/{i}/kep.yaml", "status", "odd " * 10) for i in range(60)]
    body = render(SNAP, _many(30), [*routine, *left], ChangelogInputs(extra=[extra], max_chars=6000)).body
    assert len(body) <= 6000
    problems = body.split("<details><summary>Problems (63)</summary>")[1]
    assert [line for line in problems.splitlines() if line.startswith("| m.md |")] == [
        "| m.md | line 9 | KEP cell 'k9' names no KEP; left as is |",
        "| m.md | line 10 | KEP cell 'k10' names no KEP; left as is |",
        "| m.md | line 200 | KEP cell 'k200' names no KEP; left as is |",
    ]
    # what was cut is routine and said so: every other problem, and candidates
    assert "_60 more problems left out to keep this text short enough for a pull request; see the JSON report._" in (
        problems
    )
    assert "more candidates left out" in body


def test_body_that_fits_is_not_cut():
    body = render(SNAP, _many(10), [], ChangelogInputs(max_chars=60_000)).body
    assert "left out" not in body
    assert sum(1 for line in body.splitlines() if line.startswith("| [10")) == 10


def test_report_shape():
    data = report(SNAP, CHANGES[:1], [Problem("keps/a/kep.yaml", "status", "bad"), Problem("keps/b", "", "gone")])
    assert set(data) == {"revision", "changes", "problems"}
    assert data["revision"] == REV
    assert data["changes"] == [
        {
            "kep": "4671",
            "page": "m.md",
            "line": 32,
            "field": "stage",
            "old": "alpha",
            "new": "beta",
            "kind": "promoted",
            "applied": True,
            "kep_path": K1,
        }
    ]
    assert data["problems"] == [
        {"path": "keps/a/kep.yaml", "message": "status: bad"},
        {"path": "keps/b", "message": "gone"},
    ]
    json.dumps(data)  # serialisable


def test_kep_yaml_url():
    assert (
        kep_yaml_url("https://github.com/kubernetes/enhancements/", REV, K1)
        == f"https://github.com/kubernetes/enhancements/blob/{REV}/{K1}"
    )
    assert kep_yaml_url("https://x", "", K1) == ""
    assert kep_yaml_url("https://x", REV, "") == ""


def test_html_from_upstream_is_escaped_outside_code_and_kep_0000_has_no_link():
    change = Change("0000-kep-process", "m.md", 3, "beta", "v1.31", "v1.31 <img src=x>", "retargeted", True, "k")
    body = render(SNAP._replace(revision=""), [change], [Problem("k", "beta", "'<b>' and `<i>` & @x")]).body
    assert "| 0000-kep-process | L3 | beta: v1.31 → **v1.31 &lt;img src=x&gt;** | k |" in body
    assert "| k | beta | '&lt;b&gt;' and `<i>` &amp; `@x` |" in body


def test_problems_are_sorted_by_page_then_line_number():
    changes = [Change("1", "s.md", n, "status", "x", "implemented", "status", True, "k") for n in (9, 10, 100)]
    problems = [
        Problem("s.md", "line 100", "c"),
        Problem("s.md", "line 10", "b"),
        Problem("s.md", "line 9", "a"),
        Problem("s.md", "", "page"),
        Problem("a.md", "", "other page"),
    ]
    body = render(SNAP._replace(revision=""), changes, problems).body
    rows = [line for line in body.splitlines() if line.startswith(("| a.md", "| s.md"))]
    assert rows == [
        "| a.md | - | other page |",
        "| s.md | - | page |",
        "| s.md | line 9 | a |",
        "| s.md | line 10 | b |",
        "| s.md | line 100 | c |",
    ]


def test_a_no_change_changelog_still_lists_the_rows_left_as_is():
    kept = Problem("m.md", "line 7", "KEP 1: status 'beta' is not a status word kep-sync knows; status kept")
    body = render(SNAP, [], [kept, *PROBLEMS]).body
    assert [line for line in body.splitlines() if line.startswith("| m.md")] == [
        "| m.md | line 7 | KEP 1: status 'beta' is not a status word kep-sync knows; status kept |",
        "| m.md | line 40 | KEP cell 'x' names no KEP; left as is |",
    ]
    body = render(SNAP, CHANGES[:1], [kept]).body  # with a change too: every row left as is is listed
    assert "| m.md | line 7 | KEP 1: status 'beta' is not a status word kep-sync knows; status kept |" in body


def test_a_half_updated_row_says_in_its_own_line_why_a_cell_was_kept():
    """KEP 281's kep.yaml says ``status: removed`` (no KEP status) and ``stage: removed``: the stage is written,
    the status cell kept, and the row's line says why (not only the folded Problems section)."""
    from bot.config import validate_config
    from bot.plan.planner import plan_sync
    from tests.syncutil import kep, snapshot

    snap = snapshot(kep(281, "dynamic-kubelet-configuration", sig="sig-node", status="removed", stage="removed"))
    page = "| KEP | Status | Stage |\n|---|---|---|\n| 281-dynamic-kubelet-configuration | implementable | beta |\n"
    plan = plan_sync(validate_config({}, "t"), snap, {"m.md": page.encode()})
    (row,) = [line for line in plan.changelog.body.splitlines() if line.startswith("| [281]")]
    assert row.split(" | ")[1:3] == [
        "L3",
        "stage: beta → **removed**<br>⚠ kep.yaml status 'removed' is not a valid status; status cell kept",
    ]


def test_a_page_with_no_kep_table_says_to_remove_it_from_wiki_pages_first():
    """A configured page with no KEP table (its only table under a header ``columns.kep`` does not name): the
    Problems line and the JSON report give the usual fix (remove the page from ``wiki.pages``) and the other."""
    from bot.config import validate_config
    from bot.plan.planner import plan_sync
    from tests.syncutil import kep, snapshot

    snap = snapshot(kep(4671, "gang-scheduling"))
    pages = {
        "m.md": b"| KEP | Status |\n|---|---|\n| 4671 | implementable |\n",
        "notes.md": b"| Date | Who |\n|---|---|\n",
    }
    plan = plan_sync(validate_config({}, "t"), snap, pages)
    why = (
        "no table with a KEP column ('KEP'); nothing to sync on this page: if it holds no KEP matrix, remove it "
        "from wiki.pages; else add the KEP column's header to columns.kep (kep-sync init writes it)"
    )
    assert [(p.path, p.key, p.message) for p in plan.problems] == [("notes.md", "", why)]
    assert [line for line in plan.changelog.body.splitlines() if "notes.md" in line] == [f"| notes.md | - | {why} |"]


def test_the_change_column_shows_what_is_written_as_the_report_new_says():
    written = [
        CHANGES[0]._replace(written="Beta"),  # a page writing its stages capitalised
        Change("5598", "m.md", 34, "stable", "v1.38", "", "retargeted", True, K1, written=""),  # a blank "none"
        CHANGES[1]._replace(written="v1.37"),
    ]
    log = render(SNAP, written, [], ChangelogInputs())
    row = next(line for line in log.body.splitlines() if line.startswith("| [4671]"))
    assert row.split(" | ")[2] == "stage: alpha → **Beta**<br>beta: - → **v1.37**"
    row = next(line for line in log.body.splitlines() if line.startswith("| [5598]"))
    assert row.split(" | ")[2] == "stable: v1.38 → **(blank)**"
    assert [c["new"] for c in report(SNAP, written, [])["changes"]] == ["Beta", "", "v1.37"]
