"""Rows vs kep.yaml when upstream says nothing, says it twice, is a template copy, cannot be read, clears a
target, rewrites a released milestone or contradicts itself (bot/plan/diff.py, bot/plan/changelog/body.py)."""

from __future__ import annotations

from bot.model.kep import Problem
from bot.plan.changelog import body as changelog
from bot.plan.diff import Change, diff_page
from bot.wiki.matrix import parse_page

try:
    from tests.syncutil import kep, snapshot
except ImportError:  # pragma: no cover
    from syncutil import kep, snapshot

HEADER = "| KEP | Status | Alpha / Beta / GA |\n|---|---|---|\n"
P95 = "keps/sig-api-machinery/95-crd/kep.yaml"
K95 = 'title: CRD\nkep-number: 95\nstatus: implemented\nstage: stable\nlatest-milestone: "1.16"\n'


def run(rows: str, *keps):
    page = parse_page("p.md", HEADER + rows)
    return diff_page(page, snapshot(*keps)), page.lines


def test_no_milestone_mapping_keeps_the_cells_and_says_so():
    diff, old = run("| 95-crd | implemented / stable | v1.7 / v1.8 / v1.16 |\n", (P95, K95.encode()))
    assert diff.changes == [] and diff.lines == old
    assert diff.problems == [
        Problem(
            "p.md",
            "line 3",
            f"alpha, beta, stable kept: kep.yaml has no milestone mapping, so it says nothing about milestones ({P95})",
        )
    ]


def test_no_milestone_mapping_and_empty_cells_is_nothing_to_report():
    diff, old = run("| 95-crd | implemented / stable | - / - / - |\n", (P95, K95.encode()))
    assert (diff.changes, diff.problems, diff.lines) == ([], [], old)


def test_other_fields_of_a_kep_with_no_milestone_mapping_are_still_written():
    diff, _ = run("| 95-crd | implementable / beta | v1.7 / v1.8 / v1.16 |\n", (P95, K95.encode()))
    assert [(c.field, c.old, c.new, c.kind) for c in diff.changes] == [
        ("status", "implementable", "implemented", "status"),
        ("stage", "beta", "stable", "promoted"),
    ]
    assert diff.lines[2] == "| 95-crd | implemented / stable | v1.7 / v1.8 / v1.16 |"


def test_a_merge_key_milestone_is_read_not_wiped():
    text = (
        b"title: m\nkep-number: 1050\nstatus: implementable\nstage: beta\nlatest-milestone: v1.35\n"
        b"defaults: &ms\n  alpha: v1.33\nmilestone:\n  <<: *ms\n  beta: v1.35\n"
    )
    diff, _ = run(
        "| 1050-merge | implementable / alpha | v1.33 / - / - |\n", ("keps/sig-apps/1050-merge/kep.yaml", text)
    )
    assert [(c.field, c.old, c.new) for c in diff.changes] == [("stage", "alpha", "beta"), ("beta", "", "v1.35")]
    assert diff.lines[2] == "| 1050-merge | implementable / beta | v1.33 / v1.35 / - |"


def test_a_target_removed_inside_a_real_mapping_is_cleared_and_called_so():
    diff, _ = run(
        "| 1-a | implementable / beta | v1.33 / v1.34 / v1.35 |\n",
        kep(1, "a", stage="beta", alpha="v1.33", beta="v1.34", latest="v1.34"),
    )
    assert [(c.field, c.old, c.new, c.kind, c.applied) for c in diff.changes] == [
        ("stable", "v1.35", "", "target-removed", True)
    ]
    assert diff.lines[2] == "| 1-a | implementable / beta | v1.33 / v1.34 / - |"


def test_a_key_given_twice_keeps_the_cell_and_names_file_key_and_lines():
    path, data = kep(1, "a", alpha="v1.35", extra="status: implemented\n")
    diff, old = run("| 1-a | implementable / alpha | v1.35 / - / - |\n", (path, data))
    assert diff.changes == [] and diff.lines == old
    assert diff.problems == [
        Problem("p.md", "line 3", f"status kept: status is given twice in kep.yaml (lines 6 and 14) ({path})")
    ]


def test_a_template_copy_writes_none_of_its_fields_not_even_its_sample_milestones():
    text = (
        b"title: KEP Template\nkep-number: 5000\nstatus: provisional|implementable|implemented\n"
        b"stage: alpha|beta|stable\nlatest-milestone: v1.19\nmilestone:\n  alpha: v1.19\n  beta: v1.20\n"
    )
    path = "keps/sig-api-machinery/5000-lint/kep.yaml"
    diff, old = run("| 5000-lint | provisional / - | - / - / - |\n", (path, text))
    assert diff.changes == [] and diff.lines == old
    assert diff.problems == [
        Problem(
            "p.md",
            "line 3",
            "status, stage, alpha, beta, stable kept: kep.yaml is a copy "
            "of the KEP template (status 'provisional|implementable|"
            f"implemented', stage 'alpha|beta|stable') ({path})",
        )
    ]


def test_an_unreadable_kep_yaml_keeps_its_row_and_is_not_missing_upstream():
    path = "keps/sig-x/77-broken/kep.yaml"
    diff, old = run(
        "| 77-broken | implementable / alpha | v1.35 / - / - |\n| 78 | implementable / alpha | - / - / - |\n",
        (path, b"status: [unclosed\n"),
        ("keps/sig-x/78-fine/kep.yaml", b"\xff\xfe"),
    )
    assert diff.changes == [] and diff.lines == old
    assert diff.problems == [
        Problem(
            "p.md",
            "line 3",
            f"KEP 77-broken: {path} cannot be read (not valid YAML at line 2: did not find "
            "expected ',' or ']'); row kept",
        ),
        Problem(
            "p.md",
            "line 4",
            "KEP 78: keps/sig-x/78-fine/kep.yaml cannot be read (not UTF-8 (invalid start byte at byte 0)); row kept",
        ),
    ]


def test_a_merge_key_bomb_or_a_merged_list_key_keeps_the_row_and_says_why():
    bomb = "a0: &a0 {x: '1'}\n" + "".join(
        f"a{i}: &a{i} {{<<: [{', '.join([f'*a{i - 1}'] * 8)}]}}\n" for i in range(1, 25)
    )
    tail = "status: implementable\nstage: beta\nmilestone: {alpha: v1.36}\n"
    diff, old = run(
        "| 77-bomb | implementable / alpha | v1.35 / - / - |\n| 78-key | implementable / alpha | v1.35 / - / - |\n",
        ("keps/sig-x/77-bomb/kep.yaml", (bomb + tail).encode()),
        ("keps/sig-x/78-key/kep.yaml", ("<<: {? [a]: b}\n" + tail).encode()),
    )
    assert diff.changes == [] and diff.lines == old
    assert diff.problems == [
        Problem(
            "p.md",
            "line 3",
            "KEP 77-bomb: keps/sig-x/77-bomb/kep.yaml cannot be read (not usable YAML at line 1: "
            "aliases expand to more than 20,000 mappings and sequences (an alias bomb?)); row kept",
        ),
        Problem(
            "p.md",
            "line 4",
            "KEP 78-key: keps/sig-x/78-key/kep.yaml cannot be read (not valid YAML at line 1: "
            "a key is a sequence, not a name); row kept",
        ),
    ]


def test_an_unreadable_kep_yaml_sharing_its_number_is_picked_by_the_slug():
    snap_files = (("keps/sig-x/2133-broken/kep.yaml", b"a: [\n"), kep(2133, "fine", alpha="v1.30"))
    diff, _ = run(
        "| 2133-broken | implementable / alpha | v1.29 / - / - |\n"
        "| 2133-fine | implementable / alpha | v1.29 / - / - |\n",
        *snap_files,
    )
    assert [(c.kep_id, c.line, c.field, c.new) for c in diff.changes] == [("2133", 4, "alpha", "v1.30")]
    assert [p.message.split(" cannot be read")[0] for p in diff.problems] == [
        "KEP 2133-broken: keps/sig-x/2133-broken/kep.yaml"
    ]


def _released_snapshot(*keps):
    """Two more KEPs name latest-milestone v1.37, so v1.37 is the release in progress."""
    return (*keps, kep(8, "x", latest="v1.37"), kep(9, "y", latest="v1.37"))


def test_rewriting_a_released_milestone_is_flagged_and_a_forward_move_is_not():
    diff, _ = run(
        "| 1-a | implementable / alpha | v1.33 / v1.37 / - |\n",
        *_released_snapshot(kep(1, "a", alpha="v1.37", beta="v1.38", latest="v1.37")),
    )
    flag = "rewrites a released milestone: v1.33 (the release in progress is v1.37)"
    assert [(c.field, c.old, c.new, c.kind, c.flags) for c in diff.changes] == [
        ("alpha", "v1.33", "v1.37", "retargeted", (flag,)),
        ("beta", "v1.37", "v1.38", "retargeted", ()),
    ]


def test_a_consistency_finding_is_flagged_on_the_change_it_concerns_only():
    diff, _ = run(
        "| 1-a | implementable / alpha | v1.31 / - / - |\n| 2-b | implementable / alpha | v1.31 / v1.34 / - |\n",
        kep(1, "a", alpha="v1.31", beta="v1.34", latest="v1.34"),
        kep(2, "b", alpha="v1.31", beta="v1.34", latest="v1.34"),
    )
    flag = (
        "kep.yaml says stage alpha but milestone.beta v1.34 is not after latest-milestone v1.34; the stage may not "
        "have been updated"
    )
    assert [(c.kep_id, c.field, c.flags) for c in diff.changes] == [("1", "beta", (flag,))]  # row 2: no change, no flag


def test_changelog_and_report_call_out_removed_targets_released_rewrites_and_flags():
    snap = snapshot(*_released_snapshot(kep(1, "a", stage="beta", alpha="v1.37", beta="v1.37", latest="v1.37")))
    path = "keps/sig-scheduling/1-a/kep.yaml"
    changes = [
        Change(
            "1",
            "p.md",
            3,
            "alpha",
            "v1.33",
            "v1.37",
            "retargeted",
            True,
            path,
            flags=("rewrites a released milestone: v1.33 (the release in progress is v1.37)",),
        ),
        Change("1", "p.md", 3, "stable", "v1.39", "", "target-removed", True, path),
    ]
    log = changelog.render(snap, changes, [])
    assert log.title == "Update KEP matrix: 2 changes in 1 KEP (1 retargeted, 1 target removed)"
    assert (
        "<details><summary>Targets removed upstream (1)</summary>\n\nkep.yaml no longer names a milestone for "
        "these stages; the cell is cleared.\n\n- KEP [1](https://kep.k8s.io/1) stable: v1.39 → **-** (p.md:3)\n"
    ) in log.body
    assert (
        "<details><summary>Released milestones rewritten (1)</summary>\n\nThe page showed a milestone that is "
        "already released; kep.yaml now names another. The history of the kep.yaml value is given; check that "
        "the page was wrong.\n\n- KEP [1](https://kep.k8s.io/1) alpha: v1.33 → **v1.37** (p.md:3)\n"
    ) in log.body
    assert (
        "| alpha: v1.33 → **v1.37**<br>⚠ rewrites a released milestone: v1.33 (the release in progress is v1.37)"
        "<br>stable: v1.39 → **-** |" in log.body
    )
    report = changelog.report(snap, changes, [])
    assert report["problems"] == [
        {
            "path": "p.md:3",
            "message": "KEP 1 alpha v1.33 -> v1.37: rewrites a released "
            "milestone: v1.33 (the release in progress is v1.37)",
        }
    ]
    assert [c["kind"] for c in report["changes"]] == ["retargeted", "target-removed"]


def test_one_run_keeps_what_upstream_does_not_say_and_flags_what_it_contradicts():
    from bot.config import Config
    from bot.plan.planner import plan_sync

    files = (
        (P95, K95.encode()),
        (
            "keps/sig-apps/1050-merge/kep.yaml",
            b"kep-number: 1050\nstatus: implementable\nstage: beta\n"
            b"latest-milestone: v1.35\nd: &d {alpha: v1.33}\n"
            b"milestone:\n  <<: *d\n  beta: v1.35\n",
        ),
        kep(1007, "lags", alpha="v1.31", beta="v1.34", latest="v1.34"),
        ("keps/sig-x/77-broken/kep.yaml", b"title: [\n"),
    )
    page = (
        "| KEP | Status | Alpha / Beta / GA |\n|---|---|---|\n"
        "| 95-crd | implemented / stable | v1.7 / v1.8 / v1.16 |\n"
        "| 1050-merge | implementable / alpha | v1.33 / - / - |\n"
        "| 1007-lags | implementable / alpha | v1.31 / - / - |\n"
        "| 77-broken | implementable / alpha | v1.35 / - / - |\n"
    )
    plan = plan_sync(Config.model_validate({}), snapshot(*files), {"m.md": page.encode()})
    assert plan.pages[0].new.decode().split("\n")[2:6] == [
        "| 95-crd | implemented / stable | v1.7 / v1.8 / v1.16 |",
        "| 1050-merge | implementable / beta | v1.33 / v1.35 / - |",
        "| 1007-lags | implementable / alpha | v1.31 / v1.34 / - |",
        "| 77-broken | implementable / alpha | v1.35 / - / - |",
    ]
    assert [(c["kep"], c["field"], c["kind"]) for c in plan.report["changes"]] == [
        ("1050", "stage", "promoted"),
        ("1050", "beta", "retargeted"),
        ("1007", "beta", "retargeted"),
    ]
    lag = (
        "kep.yaml says stage alpha but milestone.beta v1.34 is not after latest-milestone v1.34; the stage may not "
        "have been updated"
    )
    kept = f"alpha, beta, stable kept: kep.yaml has no milestone mapping, so it says nothing about milestones ({P95})"
    unreadable = (
        "KEP 77-broken: keps/sig-x/77-broken/kep.yaml cannot be read (not valid YAML at line 2: did not find "
        "expected node content); row kept"
    )
    assert plan.report["problems"][:3] == [
        {"path": "m.md:5", "message": f"KEP 1007 beta - -> v1.34: {lag}"},
        {"path": "m.md", "message": f"line 3: {kept}"},
        {"path": "m.md", "message": f"line 6: {unreadable}"},
    ]
    assert "no kep.yaml upstream has this number" not in plan.changelog.body
    assert f"beta: - → **v1.34**<br>⚠ {lag} |" in plan.changelog.body


def test_owned_feature_gates_are_kept_when_kep_yaml_has_no_feature_gates_list():
    page = parse_page(
        "p.md", "| KEP | Status | Feature gate |\n|---|---|---|\n| 95-crd | implemented / stable | `CRD` |\n"
    )
    diff = diff_page(page, snapshot((P95, K95.encode())), gates_owned=True)
    assert (diff.changes, diff.lines) == ([], page.lines)
    assert diff.problems == [
        Problem(
            "p.md",
            "line 3",
            f"feature_gates kept: kep.yaml has no feature-gates list, so it says nothing about feature gates ({P95})",
        )
    ]
    listed = K95 + "feature-gates: []\n"
    diff = diff_page(page, snapshot((P95, listed.encode())), gates_owned=True)
    assert [(c.field, c.old, c.new, c.applied) for c in diff.changes] == [("feature_gates", "CRD", "", True)]


EMPTY_MAP = (
    b"title: e\nkep-number: 4002\nowning-sig: sig-apps\nstatus: implementable\nstage: beta\n"
    b'latest-milestone: "v1.35"\nmilestone: {}\n'
)
P4002 = "keps/sig-apps/4002-emptymap/kep.yaml"


def test_a_cleared_milestone_of_a_reached_stage_is_kept_and_reported_not_removed():
    diff, old = run("| 4002-emptymap | implementable / beta | v1.33 / v1.35 / v1.37 |\n", (P4002, EMPTY_MAP))
    # stable is a stage beta has not reached: clearing it is a real target removal
    assert [(c.field, c.old, c.new, c.kind, c.flags) for c in diff.changes] == [
        ("stable", "v1.37", "", "target-removed", ("kep.yaml says stage beta but gives no beta milestone",))
    ]
    assert diff.lines[2] == "| 4002-emptymap | implementable / beta | v1.33 / v1.35 / - |"
    assert diff.problems == [
        Problem(
            "p.md",
            "line 3",
            "alpha, beta kept: kep.yaml says stage beta but names no "
            "milestone for a stage it has reached: lost upstream, not a "
            f"target removed ({P4002})",
        )
    ]


def test_a_stable_kep_with_an_empty_stable_milestone_keeps_every_cell():
    k = kep(7, "s", stage="stable", status="implemented", alpha="v1.30", beta="", stable="", latest="v1.33")
    diff, old = run("| 7-s | implemented / stable | v1.30 / v1.31 / v1.33 |\n", k)
    assert (diff.changes, diff.lines) == ([], old)
    assert diff.problems == [
        Problem(
            "p.md",
            "line 3",
            "beta, stable kept: kep.yaml says stage stable but names no "
            "milestone for a stage it has reached: lost upstream, not a "
            "target removed (keps/sig-scheduling/7-s/kep.yaml)",
        )
    ]


def test_stage_with_no_milestone_for_it_is_flagged_next_to_the_change():
    from bot.model import consistency

    beta = kep(8, "b", stage="beta", alpha="v1.30", latest="v1.31")
    diff, _ = run("| 8-b | implementable / alpha | v1.30 / - / - |\n", beta)
    assert [(c.field, c.new, c.flags) for c in diff.changes] == [
        ("stage", "beta", ("kep.yaml says stage beta but gives no beta milestone",))
    ]
    from bot.model.finding import Finding
    from bot.model.kep import parse_kep

    tbd = parse_kep(*kep(9, "a", stage="alpha", alpha="TBD"))
    assert consistency.check(tbd) == [
        Finding(
            "inconsistent",
            "9",
            tbd.path,
            "",
            "kep.yaml says stage alpha but gives no alpha milestone",
            fields=("stage", "alpha"),
        )
    ]
    assert consistency.check(parse_kep(*kep(9, "a", stage="alpha", alpha="v1.36"))) == []


DUP_MS = (
    b"title: dup\nkep-number: 3008\nowning-sig: sig-apps\nstatus: implementable\nstage: beta\n"
    b'latest-milestone: "v1.35"\nmilestone:\n  alpha: "v1.20"\nmilestone:\n  alpha: "v1.33"\n'
    b'  beta: "v1.35"\nfeature-gates: []\n'
)
KEYCASE = (
    b"title: kc\nkep-number: 3007\nowning-sig: sig-apps\nstatus: implementable\nstage: beta\n"
    b'latest-milestone: "v1.35"\nmilestone:\n  Alpha: "v1.33"\n  beta: "v1.35"\nfeature-gates: []\n'
)


def test_a_withheld_value_is_a_row_problem_even_when_the_cell_already_says_it():
    p1, p2 = "keps/sig-apps/3008-dupms/kep.yaml", "keps/sig-apps/3007-keycase/kep.yaml"
    diff, old = run(
        "| 3008-dupms | implementable / beta | v1.33 / v1.35 / - |\n"
        "| 3007-keycase | implementable / beta | v1.33 / v1.35 / - |\n",
        (p1, DUP_MS),
        (p2, KEYCASE),
    )
    assert (diff.changes, diff.lines) == ([], old)
    assert diff.problems == [
        Problem(
            "p.md", "line 3", f"alpha, beta, stable kept: milestone is given twice in kep.yaml (lines 7 and 9) ({p1})"
        ),
        Problem("p.md", "line 4", f"alpha kept: kep.yaml spells milestone.alpha as 'Alpha' ({p2})"),
    ]


def test_a_status_or_stage_word_kep_sync_does_not_know_is_kept_and_reported_the_rest_is_written():
    page = parse_page(
        "p.md",
        "| KEP | 状态 | Stage | Alpha / Beta / GA |\n|---|---|---|---|\n"
        "| 3012 | 可实现 / alpha | alpha | v1.35 / - / - |\n"
        "| 3013 | implementable / alpha | 测试版 | v1.35 / - / - |\n"
        "| 3014 | **IMPLEMENTABLE** / ＡＬＰＨＡ | - | v1.35 / - / - |\n",
    )
    k = {n: kep(n, f"k{n}", stage="beta", alpha="v1.35", beta="v1.37", latest="v1.37") for n in (3012, 3013, 3014)}
    diff = diff_page(page, snapshot(*k.values()))
    assert [(c.kep_id, c.field, c.old, c.new) for c in diff.changes] == [
        ("3012", "stage", "alpha", "beta"),
        ("3012", "beta", "", "v1.37"),
        ("3013", "beta", "", "v1.37"),
        ("3014", "stage", "ＡＬＰＨＡ", "beta"),
        ("3014", "beta", "", "v1.37"),
    ]
    assert diff.lines[2:5] == [
        "| 3012 | 可实现 / beta | beta | v1.35 / v1.37 / - |",
        "| 3013 | implementable / alpha | 测试版 | v1.35 / v1.37 / - |",
        "| 3014 | **IMPLEMENTABLE** / beta | beta | v1.35 / v1.37 / - |",
    ]
    assert diff.problems == [
        Problem(
            "p.md",
            "line 3",
            "KEP 3012: status '可实现' is not a status word kep-sync knows; status kept "
            "(kep.yaml says 'implementable')",
        ),
        Problem(
            "p.md",
            "line 4",
            "KEP 3013: stage '测试版' is not a stage word kep-sync knows; stage kept (kep.yaml says 'beta')",
        ),
    ]


def test_a_header_ending_in_an_owned_alias_is_reported_not_guessed():
    text = (
        "| KEP | 状态 | 里程碑 (Alpha / Beta / GA) | 阶段 Stage | Beta feedback | Stage |\n|---|---|---|---|---|---|\n"
        "| 1 | implementable / alpha | v1.35 / - / - | alpha | ok | alpha |\n"
    )
    page = parse_page("p.md", text)
    tail = (
        " but is not one of its names, so kep-sync neither reads nor writes it and its values can go stale; add it to"
    )
    assert page.problems == [
        Problem(
            "p.md",
            "line 1",
            "column '里程碑 (Alpha / Beta / GA)' looks like the milestones column "
            f"('Alpha / Beta / GA'){tail} columns.milestones",
        ),
        Problem("p.md", "line 1", f"column '阶段 Stage' looks like the stage column ('Stage'){tail} columns.stage"),
    ]
    assert set(page.rows[0].cells) == {"kep", "status", "stage"}


def test_a_status_cell_holding_a_stage_word_says_which_column_role_it_fits():
    page = parse_page(
        "p.md",
        "| KEP | Status | Stage |\n|---|---|---|\n| 3012 | beta | beta |\n| 3013 | implementable | implementable |\n",
    )
    k = [kep(n, f"k{n}", stage="beta", alpha="v1.35", beta="v1.37", latest="v1.37") for n in (3012, 3013)]
    diff = diff_page(page, snapshot(*k))
    assert diff.problems == [
        Problem(
            "p.md",
            "line 3",
            "KEP 3012: status 'beta' is not a status word kep-sync knows; status kept "
            "(kep.yaml says 'implementable'); 'beta' is a stage: map the column to "
            "columns.stage, or write a status",
        ),
        Problem(
            "p.md",
            "line 4",
            "KEP 3013: stage 'implementable' is not a stage word kep-sync knows; stage kept "
            "(kep.yaml says 'beta'); 'implementable' is a status: map the column to "
            "columns.status, or write a stage",
        ),
    ]
    assert diff.lines[2:4] == ["| 3012 | beta | beta |", "| 3013 | implementable | implementable |"]
