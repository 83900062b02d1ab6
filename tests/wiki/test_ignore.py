"""Ignore rules: row markers in the page and ``ignore:`` entries in the config (bot/wiki/ignore.py, bot/plan/diff.py)."""

from __future__ import annotations

from bot.config import Config
from bot.plan.planner import plan_sync
from bot.wiki.ignore import add_marker, marker_text, mask_page, strip_markers
from tests.syncutil import PAGE, kep, snapshot

ROW_4671 = "| 4671-gang-scheduling | scheduling | implementable / alpha | v1.35 / - / - | `GenericWorkload` | 组调度 \\| PodGroup |"
ROW_5710 = (
    "| [5710-workload-aware-preemption](https://kep.k8s.io/5710) | scheduling | implementable / alpha | "
    "v1.36 / v1.37 / v1.39 | `GenericWorkload` | 抢占 |"
)


def _snap(stable_4671: str = "v1.38", stable_5710: str = "v1.40"):
    return snapshot(
        kep(
            4671,
            "gang-scheduling",
            stage="beta",
            alpha="v1.35",
            beta="v1.37",
            stable=stable_4671,
            gates=("GenericWorkload",),
        ),
        kep(
            5710,
            "workload-aware-preemption",
            stage="beta",
            alpha="v1.36",
            beta="v1.37",
            stable=stable_5710,
            gates=("GenericWorkload",),
        ),
    )


def _plan(page: str, config: Config | None = None, snap=None):
    return plan_sync(config or Config(), snap or _snap(), {"p.md": page.encode()})


def _changed_lines(page: str, plan) -> list[tuple[str, str]]:
    return [(a, b) for a, b in zip(page.split("\n"), plan.pages[0].new.decode().split("\n"), strict=False) if a != b]


def test_a_field_marker_in_a_cell_keeps_that_field_and_the_row_keeps_its_marker():
    assert ROW_4671 in PAGE and ROW_5710 in PAGE
    marked = ROW_4671.replace("v1.35 / - / - |", "v1.35 / - / - <!-- kep-sync: ignore stable --> |")
    page = PAGE.replace(ROW_4671, marked)
    plan = _plan(page)
    got = [(c.kep_id, c.field, c.new, c.applied, c.ignored) for c in plan.changes if c.kep_id == "4671"]
    assert got == [
        ("4671", "stage", "beta", True, ""),
        ("4671", "beta", "v1.37", True, ""),
        ("4671", "stable", "v1.38", False, "page"),
    ]
    assert _changed_lines(page, plan)[0][1] == marked.replace("implementable / alpha", "implementable / beta").replace(
        "v1.35 / - / -", "v1.35 / v1.37 / -"
    )
    body = plan.changelog.body
    assert "<details><summary>Ignored (1)</summary>" in body
    assert "| [4671](https://kep.k8s.io/4671) | L18 | stable | - → v1.38 | row marker |" in body


def test_a_whole_row_marker_keeps_every_field_and_lists_the_drift():
    page = PAGE.replace(ROW_5710, ROW_5710.replace("| scheduling |", "| scheduling <!-- kep-sync: ignore --> |"))
    plan = _plan(page)
    got = [(c.field, c.applied, c.ignored) for c in plan.changes if c.kep_id == "5710"]
    assert got == [("stage", False, "page"), ("stable", False, "page")]
    assert [a for a, _ in _changed_lines(page, plan)] == [ROW_4671]  # the 5710 row is byte for byte the same
    assert "<details><summary>Ignored (2)</summary>" in plan.changelog.body


def test_a_config_rule_with_a_value_ignores_only_that_value():
    config = Config.model_validate({"ignore": [{"kep": 4671}, {"kep": 5710, "fields": ["stable"], "value": "v1.40"}]})
    plan = _plan(PAGE, config)
    assert [
        (c.kep_id, c.field, c.applied, c.ignored)
        for c in plan.changes
        if c.kind != "missing-upstream" and c.field != "feature_gates"
    ] == [
        ("4671", "stage", False, "config"),
        ("4671", "beta", False, "config"),
        ("4671", "stable", False, "config"),
        ("5710", "stage", True, ""),
        ("5710", "stable", False, "config"),
    ]
    assert "| config `ignore` |" in plan.changelog.body
    # upstream moves 5710's stable target again: the new value is proposed
    later = _plan(PAGE, config, _snap(stable_5710="v1.41"))
    assert [(c.field, c.new, c.applied) for c in later.changes if c.kep_id == "5710" and c.field == "stable"] == [
        ("stable", "v1.41", True)
    ]


def test_a_merged_marker_outlasts_a_new_upstream_value_and_a_second_run_proposes_nothing():
    page = PAGE.replace(
        ROW_4671,
        ROW_4671.replace("| 4671-gang-scheduling |", "| 4671-gang-scheduling <!-- kep-sync: ignore stable --> |"),
    )
    first = _plan(page)
    merged = first.pages[0].new.decode()
    assert "4671-gang-scheduling <!-- kep-sync: ignore stable --> |" in merged
    again = _plan(merged)
    assert [c for c in again.changes if c.applied] == [] and not again.pages[0].changed
    newer = _plan(merged, snap=_snap(stable_4671="v1.39"))  # a new upstream value: still kept, still listed
    assert [
        (c.field, c.new, c.applied, c.ignored) for c in newer.changes if c.kep_id == "4671" and c.field == "stable"
    ] == [("stable", "v1.39", False, "page")]
    assert not newer.pages[0].changed


def test_marker_helpers():
    assert marker_text(["beta", "stable"]) == "<!-- kep-sync: ignore beta stable -->"
    assert marker_text([]) == "<!-- kep-sync: ignore -->"
    line, markers = strip_markers("| 1-a <!-- KEP-SYNC: ignore GA, gates --> | x |")
    assert line == "| 1-a | x |"
    assert [(m.cell, sorted(m.fields)) for m in markers] == [(0, ["feature_gates", "stable"])]
    assert add_marker("| 1-a | x |", 0, ["stable"]) == "| 1-a <!-- kep-sync: ignore stable --> | x |"
    assert (
        add_marker("| 1-a <!-- kep-sync: ignore --> | x |", 0, ["stable"]) == "| 1-a <!-- kep-sync: ignore --> | x |"
    )  # already ignored: unchanged
    text, masked = mask_page("a\n| 1-a <!-- kep-sync: ignore --> | x |\n")
    assert text == "a\n| 1-a | x |\n" and list(masked) == [1]


def test_a_config_rule_naming_an_unknown_field_is_refused_naming_it():
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as err:
        Config.model_validate({"ignore": [{"kep": 1, "fields": ["bogus"]}]})
    assert [(e["loc"], e["msg"]) for e in err.value.errors()] == [
        (
            ("ignore", 0, "fields"),
            "Value error, 'bogus' is not a field kep-sync writes "
            "(status, stage, alpha, beta, stable, feature_gates, shipped)",
        )
    ]


def test_the_controls_footer_names_the_schedule_the_label_and_where_ignore_rules_live():
    from bot.plan.changelog.controls import controls

    lines = controls(Config.model_validate({"schedule": {"cron": "17 6 * * 1-5"}}).steering())
    assert lines[0] == (
        "- **Runs** on its schedule: `17 6 * * 1-5` (UTC) under `kep-sync serve`, or its workflow's "
        "cron in GitHub Actions; each run rebuilds this pull request from the base branch and upstream."
    )
    assert "`kep-sync:regenerate`" in lines[2] and "`kep-sync/matrix`" in lines[2]
    assert lines[2].endswith(
        "add the label `kep-sync:regenerate` to replace the branch with a fresh commit "
        "(anyone who may label pull requests can: triage access is enough, unlike the commands)."
    )
    assert lines[3].startswith("- **Ignore rules**: `<!-- kep-sync: ignore -->`")
    assert len(lines) == 4


def test_a_marker_with_an_unknown_word_is_a_problem_and_ignores_only_what_it_names():
    stabel = PAGE.replace(
        ROW_4671,
        ROW_4671.replace("| 4671-gang-scheduling |", "| 4671-gang-scheduling <!-- kep-sync: ignore stabel --> |"),
    )
    plan = _plan(stabel)
    assert [(c.field, c.applied, c.ignored) for c in plan.changes if c.kep_id == "4671"] == [
        ("stage", True, ""),
        ("beta", True, ""),
        ("stable", True, ""),
    ]  # never widened to the whole row
    assert [(p.path, p.key, p.message) for p in plan.problems if "marker" in p.message] == [
        (
            "p.md",
            "line 18",
            "ignore marker: 'stabel' names no field (one of status, stage, alpha, beta, stable, "
            "feature_gates, shipped); the marker ignores nothing",
        )
    ]
    glued = _plan(stabel.replace("ignore stabel", "ignore-stable beta"))
    assert [(c.field, c.applied, c.ignored) for c in glued.changes if c.kep_id == "4671"] == [
        ("stage", True, ""),
        ("beta", False, "page"),
        ("stable", True, ""),
    ]
    assert [p.message for p in glued.problems if "marker" in p.message] == [
        "ignore marker: '-stable' names no field (one of status, stage, alpha, beta, stable, feature_gates, shipped); the "
        "marker ignores only beta"
    ]


def test_markers_stay_where_they_stood_when_the_row_is_rewritten():
    row = ROW_4671.replace("| implementable / alpha |", "| implementable <!-- kep-sync: ignore stable --> / alpha |")
    row = row.replace("| 组调度 \\| PodGroup |", "| <!-- kep-sync: ignore alpha --> 组调度 \\| PodGroup |")
    page = PAGE.replace(ROW_4671, row)
    plan = _plan(page)
    assert _changed_lines(page, plan)[0] == (
        row,
        row.replace("/ alpha |", "/ beta |").replace("v1.35 / - / -", "v1.35 / v1.37 / -"),
    )


def test_a_marker_in_a_code_span_is_text():
    row = ROW_4671.replace("`GenericWorkload`", "`GenericWorkload <!-- kep-sync: ignore -->`")
    line, markers = strip_markers(row)
    assert (line, markers) == (row, [])
    plan = _plan(PAGE.replace(ROW_4671, row))
    assert [(c.field, c.applied, c.ignored) for c in plan.changes if c.kep_id == "4671"][:3] == [
        ("stage", True, ""),
        ("beta", True, ""),
        ("stable", True, ""),
    ]
    assert (
        strip_markers("| a `` x ` <!-- kep-sync: ignore --> `` | b <!-- kep-sync: ignore --> |")[0]
        == "| a `` x ` <!-- kep-sync: ignore --> `` | b |"
    )


def test_a_config_rule_matching_no_row_is_a_problem_and_a_misspelled_key_gets_a_suggestion():
    import pytest

    from bot.config import validate_config
    from bot.errors import ConfigError

    config = Config.model_validate({"ignore": [{"kep": 4671}, {"kep": 99999}]})
    assert [(p.path, p.key, p.message) for p in _plan(PAGE, config).problems if p.path == "config"] == [
        ("config", "ignore[1]", "KEP 99999 is in no matrix row of the pages; the rule ignores nothing")
    ]
    with pytest.raises(ConfigError) as err:
        validate_config({"ignore": [{"kep": 1, "feilds": ["stable"]}]}, "c.yaml")
    assert str(err.value) == "c.yaml: ignore[0].feilds: unknown key (value ['stable']); did you mean 'fields'?"
