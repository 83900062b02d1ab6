"""The changelog names what really happened: the real source, the KEP's title, each problem once with the
report's count, and a front_matter.date_key update (bot/plan/changelog/body.py, bot/plan/planner.py)."""

from __future__ import annotations

from bot.config import Config
from bot.model.kep import Problem
from bot.plan.changelog.body import ChangelogInputs, render
from bot.plan.changelog.rows import source_name
from bot.plan.diff import Change
from bot.plan.planner import plan_sync
from tests.syncutil import PAGE, PAGE_KEPS, snapshot

REV = "0123456789abcdef0123456789abcdef01234567"
K1 = "keps/sig-scheduling/4671-gang-scheduling/kep.yaml"
CHANGE = Change("4671", "m.md", 18, "stage", "alpha", "beta", "promoted", True, K1)


def test_source_is_named_as_it_is():
    assert source_name("github:kubernetes/enhancements@master") == "kubernetes/enhancements"
    assert source_name("github:acme/enh-fork@v1.2") == "acme/enh-fork"
    assert (
        source_name("examples/enhancements-2026-07-22-00dd105.tar.gz")
        == "`examples/enhancements-2026-07-22-00dd105.tar.gz`"
    )
    assert source_name("/home/me/src/enhancements", code=False) == "/home/me/src/enhancements"
    local = snapshot(*PAGE_KEPS, revision=REV)._replace(source="/tmp/enhancements")
    log = render(local, [CHANGE], [])
    assert log.body.startswith(
        "**kep-sync**: 1 change in 1 KEP (1 promoted), from `/tmp/enhancements` at `0123456789ab`.\n"
    )
    assert log.commit_message.endswith(f"\n\nSource: /tmp/enhancements@{REV}\n")
    upstream = local._replace(source="github:kubernetes/enhancements@master")
    assert "from kubernetes/enhancements at `0123456789ab`" in render(upstream, [CHANGE], []).body


def test_the_changes_table_names_the_kep_title():
    snap = snapshot(*PAGE_KEPS, revision=REV)
    (kep,) = [k for k in snap.all_keps() if k.path == K1]
    row = next(line for line in render(snap, [CHANGE], []).body.splitlines() if line.startswith("| [4671]"))
    assert row.startswith(f"| [4671](https://kep.k8s.io/4671) {kep.title} | L18 | stage: alpha → **beta** |")
    long = snap._replace(keps={4671: (kep._replace(title="A" * 70),)})
    row = next(line for line in render(long, [CHANGE], []).body.splitlines() if line.startswith("| [4671]"))
    assert row.startswith(f"| [4671](https://kep.k8s.io/4671) {'A' * 59}… | L18 |")


def test_problems_are_listed_once_sorted_with_the_reports_count():
    snap = snapshot(*PAGE_KEPS, revision=REV)
    dated = Problem(K1, "creation-date", "'2025-30-01' is not a valid date (YYYY-MM-DD)")
    row = Problem("m.md", "line 40", "KEP cell 'x' names no KEP; left as is")
    body = render(snap, [CHANGE], [row, dated], ChangelogInputs(involved_problems=[dated, row])).body
    section = body[body.index("<details><summary>Problems") :]
    # line 40 is a row this pull request does not change, left as is: listed all the same
    assert section.splitlines() == [
        "<details><summary>Problems (2)</summary>",
        "",
        "Every row left as is and every value not written, with why, and the problems of this run's inputs; "
        "the run's JSON report lists every problem of the source.",
        "",
        "| Where | Key | Problem |",
        "|---|---|---|",
        f"| {K1} | creation-date | '2025-30-01' is not a valid date (YYYY-MM-DD) |",
        "| m.md | line 40 | KEP cell 'x' names no KEP; left as is |",
        "",
        "</details>",
    ]
    on_row = Problem("m.md", "line 18", "odd cell")
    body = render(snap, [CHANGE], [on_row, Problem("m.md", "", "page-wide")]).body
    assert "| m.md | line 18 | odd cell |" in body and "| m.md | - | page-wide |" in body


def test_the_problems_line_counts_the_flags_shown_next_to_their_changes():
    snap = snapshot(*PAGE_KEPS, revision=REV)
    flagged = CHANGE._replace(flags=("a released milestone is rewritten", "kep.yaml contradicts itself"))
    row = Problem("m.md", "line 40", "KEP cell 'x' names no KEP; left as is")
    body = render(snap, [flagged], [row]).body
    assert "JSON report holds" not in body  # the flags are next to the change
    assert "<details><summary>Problems (1)</summary>" in body  # the row left as is, not the flags
    assert "alpha → **beta**<br>⚠ a released milestone is rewritten<br>⚠ kep.yaml contradicts itself |" in body


def test_the_demo_shows_the_same_problems_every_run_and_counts_the_report():
    from pathlib import Path

    from bot.sources.enhancements import load_snapshot

    root = Path(__file__).resolve().parents[2]
    (tarball,) = (root / "examples").glob("enhancements-*.tar.gz")
    snap = load_snapshot(str(tarball), root / "no-cache")
    page = (root / "examples" / "wiki" / "kubernetes-keps-implementation-matrix.md").read_bytes()
    config = Config.model_validate({})
    first, second = (plan_sync(config, snap, {"matrix.md": page}) for _ in range(2))
    assert first.changelog.body == second.changelog.body
    assert len(first.report["problems"]) == 270
    body = first.changelog.body
    assert body[body.index("<details><summary>Problems") :].splitlines()[:7] == [
        "<details><summary>Problems (1)</summary>",
        "",
        "Every row left as is and every value not written, with why, and the problems of this run's inputs; "
        "the run's JSON report lists every problem of the source.",
        "",
        "| Where | Key | Problem |",
        "|---|---|---|",
        "| keps/sig-autoscaling/2021-scale-from-zero/kep.yaml | milestone.stable | 'x.y' is not a release milestone "
        "(vMAJOR.MINOR) |",
    ]
    assert body.startswith(
        f"**kep-sync**: 9 changes in 4 KEPs (4 promoted, 2 status changes, 3 retargeted), from "
        f"`{tarball}` at `{snap.revision[:12]}`.\n"
    )


def test_a_front_matter_date_update_is_listed():
    config = Config.model_validate({"front_matter": {"date_key": "date"}})
    snap = snapshot(*PAGE_KEPS, revision=REV)
    page = "---\ntitle: M\ndate: 2026-01-15\n---\n" + PAGE
    plan = plan_sync(config, snap, {"m.md": page.encode()}, today="2026-11-30")
    assert b"date: 2026-11-30\n" in plan.pages[0].new
    body = plan.changelog.body
    assert "### Front matter\n- m.md: `date: 2026-01-15` → `date: 2026-11-30`\n" in body
    unchanged = plan_sync(config, snap, {"m.md": plan.pages[0].new}, today="2026-11-30")
    assert "Front matter" not in unchanged.changelog.body  # no row changed, so no date written
