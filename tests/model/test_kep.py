"""Unit tests for bot.model.kep: parse_kep, the milestone helpers and the problems it reports."""

from __future__ import annotations

import pytest

from bot.model.consistency import check
from bot.model.kep import (
    DEPRECATION_STAGES,
    STAGES,
    STATUSES,
    Kep,
    KepFileError,
    Problem,
    load_yaml,
    parse_kep,
)
from tests.model.kepcases import PATH, VALID_STAGES, VALID_STATUSES, kep_yaml, parse


def problems_for(kep: Kep, key: str) -> list[Problem]:
    return [p for p in kep.problems if p.key == key]


# -- a clean file -------------------------------------------------------------------------------


def test_clean_kep_parses_every_field_raw_with_no_problems():
    kep = parse()
    assert kep == Kep(
        number=5075,
        slug="dra-consumable-capacity",
        path=PATH,
        title="DRA consumable capacity",
        sig="sig-scheduling",
        status="implementable",
        stage="alpha",
        latest_milestone="v1.34",
        milestones=(("alpha", "v1.34"), ("beta", "v1.35")),
        feature_gates=("DRAConsumableCapacity",),
        problems=(),
        declared_number="5075",
        key_lines=(("status", 4), ("stage", 7), ("alpha", 10), ("beta", 11), ("feature_gates", 12)),
    )
    assert kep.milestone("alpha") == "v1.34"
    assert kep.milestone("beta") == "v1.35"
    assert kep.milestone("stable") == ""
    assert kep.milestone("nonsense") == ""


def test_milestones_keep_template_order_and_only_present_keys():
    ms = 'milestone:\n  removed: "v1.40"\n  stable: "v1.36"\n  alpha: "v1.34"\n  deprecated: "v1.38"\n  other: "v1.1"'
    kep = parse(milestone=ms)
    assert kep.milestones == (("alpha", "v1.34"), ("stable", "v1.36"), ("deprecated", "v1.38"), ("removed", "v1.40"))
    assert kep.problems == ()


def test_values_are_stripped_and_nulls_become_empty():
    kep = parse(
        title="title: '  padded title  '", owning_sig="owning-sig: ~", latest_milestone="latest-milestone: null"
    )
    assert kep.title == "padded title"
    assert kep.sig == ""
    assert kep.latest_milestone == ""
    assert kep.problems == ()


def test_absent_fields_are_empty_strings():
    kep = parse_kep("keps/sig-x/42-answer/kep.yaml", b"title: Answer\nstage: beta\nstatus: implementable\n")
    assert (kep.number, kep.slug, kep.title, kep.sig, kep.latest_milestone) == (42, "answer", "Answer", "", "")
    assert kep.milestones == ()
    assert kep.feature_gates == ()
    assert kep.problems == ()


# -- string-only loading --------------------------------------------------------------------------


def test_dates_numbers_and_booleans_stay_strings():
    data = kep_yaml(title="title: yes", kep_number="kep-number: 5075", creation_date="creation-date: 2025-01-30")
    doc = load_yaml(PATH, data)
    assert doc["creation-date"] == "2025-01-30"
    assert doc["kep-number"] == "5075"
    assert doc["title"] == "yes"
    assert doc["milestone"] == {"alpha": "v1.34", "beta": "v1.35"}
    kep = parse_kep(PATH, data)
    assert kep.title == "yes"
    assert kep.problems == ()


def test_milestone_that_yaml_would_read_as_a_float_keeps_its_text():
    kep = parse(latest_milestone="latest-milestone: 1.30", milestone="milestone:\n  alpha: 1.30\n  beta: v1.31")
    assert kep.latest_milestone == "1.30"  # a float loader would have given 1.3
    assert kep.milestones == (("alpha", "1.30"), ("beta", "v1.31"))


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("creation-date", "2025-30-01"),
        ("creation-date", "2023-14-05"),
        ("last-updated", "2024-02-30"),
        ("last-updated", "v1.30"),
        ("creation-date", "yyyy-mm-dd"),
        ("creation-date", "2025/01/30"),
    ],
)
def test_invalid_dates_are_reported_not_raised(key, value):
    kep = parse(**{key: f"{key}: {value}"})
    assert kep.problems == (Problem(PATH, key, f"{value!r} is not a valid date (YYYY-MM-DD)"),)


def test_valid_dates_including_leap_day_and_quoted_are_fine():
    kep = parse(creation_date="creation-date: 2024-02-29", last_updated="last-updated: '2025-1-5'")
    assert kep.problems == ()


# -- status ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", STATUSES)
def test_every_valid_status_is_accepted(status):
    stage = "stable" if status == "implemented" else "alpha"
    kep = parse(status=f"status: {status}", stage=f"stage: {stage}")
    assert kep.status == status
    assert kep.problems == ()


@pytest.mark.parametrize("status", ["imlpemented", "implemented (alpha)", "superseded", "removed", "Implemented"])
def test_invalid_status_is_reported_and_kept_raw(status):
    kep = parse(status=f"status: {status}")
    assert kep.status == status
    assert kep.problems == (Problem(PATH, "status", f"{status!r} is not a valid status ({VALID_STATUSES})"),)


def test_missing_status_is_reported():
    kep = parse(status=None)
    assert kep.status == ""
    assert kep.problems == (Problem(PATH, "status", "missing or empty"),)


@pytest.mark.parametrize("stage", ["alpha", "beta"])
def test_implemented_before_stable_is_a_consistency_finding_not_a_problem(stage):
    kep = parse(status="status: implemented", stage=f"stage: {stage}")
    assert kep.problems == ()
    later = (
        [(("beta",), "kep.yaml's milestone.beta v1.35 is later than latest-milestone v1.34 although the stage is beta")]
        if stage == "beta"
        else []
    )  # the fixture's milestones, not what is tested
    assert [(f.fields, f.message) for f in check(kep)] == [
        (("status", "stage"), f"kep.yaml says status implemented but stage {stage}"),
        *later,
    ]


@pytest.mark.parametrize("stage", ["stable", *DEPRECATION_STAGES])
def test_implemented_with_stable_or_deprecation_stage_is_fine(stage):
    assert parse(status="status: implemented", stage=f"stage: {stage}").problems == ()


# -- stage -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("stage", STAGES + DEPRECATION_STAGES)
def test_valid_and_deprecation_stages_are_accepted(stage):
    kep = parse(stage=f"stage: {stage}")
    assert kep.stage == stage
    assert kep.problems == ()


def test_deprecation_stages_are_exactly_the_template_ones():
    assert DEPRECATION_STAGES == ("deprecated", "disabled", "removed")
    assert STAGES == ("alpha", "beta", "stable")


@pytest.mark.parametrize("stage", ["alpha (deprecated)", "GA", "Beta"])
def test_invalid_stage_is_reported(stage):
    kep = parse(stage=f"stage: {stage}")
    assert kep.stage == stage
    assert kep.problems == (Problem(PATH, "stage", f"{stage!r} is not a valid stage ({VALID_STAGES})"),)


@pytest.mark.parametrize("line", [None, "stage:", "stage: ''", "stage: ~", "stage: '   '"])
def test_missing_or_empty_stage_is_reported(line):
    kep = parse(stage=line)
    assert kep.stage == ""
    assert kep.problems == (Problem(PATH, "stage", "missing or empty"),)


def test_implemented_alpha_with_deprecated_stage_reports_both():
    kep = parse(status="status: implemented (alpha)", stage="stage: alpha (deprecated)")
    assert kep.problems == (
        Problem(PATH, "", "kep.yaml's status and stage are both unusable: none of its fields is written"),
        Problem(PATH, "status", f"'implemented (alpha)' is not a valid status ({VALID_STATUSES})"),
        Problem(PATH, "stage", f"'alpha (deprecated)' is not a valid stage ({VALID_STAGES})"),
    )


# -- milestones --------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["0.0", "TBD", "x.y", "never", "TODO", "v1.21, v1.37", "1.30.1", "V1.30", "v1"])
def test_bad_milestone_values_are_reported_per_key(value):
    kep = parse(
        latest_milestone=f'latest-milestone: "{value}"', milestone=f'milestone:\n  alpha: "{value}"\n  beta: v1.35'
    )
    assert kep.latest_milestone == value
    assert kep.milestones == (("alpha", value), ("beta", "v1.35"))
    assert kep.problems == (
        Problem(PATH, "latest-milestone", f"{value!r} is not a release milestone (vMAJOR.MINOR)"),
        Problem(PATH, "milestone.alpha", f"{value!r} is not a release milestone (vMAJOR.MINOR)"),
    )


@pytest.mark.parametrize("value", ["v1.036", "v01.30", "01.30", "v1.00"])
def test_a_milestone_with_a_leading_zero_is_malformed_not_guessed(value):
    kep = parse(milestone=f'milestone:\n  alpha: "{value}"\n  beta: v1.35')
    assert kep.milestones == (("alpha", value), ("beta", "v1.35"))
    assert kep.problems == (
        Problem(PATH, "milestone.alpha", f"{value!r} is not a release milestone: a number starts with 0"),
    )


def test_milestone_without_v_prefix_is_reported_with_its_reading():
    kep = parse(latest_milestone="latest-milestone: '1.30'", milestone="milestone:\n  stable: 1.37")
    assert kep.problems == (
        Problem(PATH, "latest-milestone", "'1.30' lacks the 'v' prefix (read as v1.30)"),
        Problem(PATH, "milestone.stable", "'1.37' lacks the 'v' prefix (read as v1.37)"),
    )


def test_empty_milestone_values_are_not_problems():
    kep = parse(latest_milestone="latest-milestone: ''", milestone="milestone:\n  alpha: ''\n  beta:\n  stable: ~")
    assert kep.milestones == (("alpha", ""), ("beta", ""), ("stable", ""))
    assert kep.problems == ()


@pytest.mark.parametrize("line", ["milestone:", "milestone: ~", "milestone: null"])
def test_null_milestone_mapping_is_fine(line):
    kep = parse(milestone=line)
    assert kep.milestones == ()
    assert kep.problems == ()


def test_milestone_that_is_not_a_mapping_is_reported():
    assert parse(milestone="milestone: v1.30").problems == (
        Problem(PATH, "milestone", "expected a mapping, found 'v1.30'"),
    )
    assert parse(milestone="milestone: [v1.30]").problems == (
        Problem(PATH, "milestone", "expected a mapping, found a list (1 item)"),
    )


def test_milestone_value_that_is_a_list_is_reported():
    kep = parse(milestone="milestone:\n  alpha: [v1.21, v1.37]\n  beta: v1.38")
    assert kep.milestones == (("alpha", ""), ("beta", "v1.38"))
    assert kep.problems == (Problem(PATH, "milestone.alpha", "expected a string, found a list"),)


# -- non-string values where strings belong -------------------------------------------------------------


@pytest.mark.parametrize(("line", "kind"), [("title: [a, b]", "list"), ("title: {a: b}", "dict")])
def test_collection_where_a_string_belongs_is_reported_not_raised(line, kind):
    kep = parse(title=line)
    assert kep.title == ""
    assert kep.problems == (Problem(PATH, "title", f"expected a string, found a {kind}"),)


def test_status_and_stage_as_collections_are_reported():
    kep = parse(status="status: {a: b}", stage="stage: [alpha]")
    assert (kep.status, kep.stage) == ("", "")
    assert kep.problems == (
        Problem(PATH, "", "kep.yaml's status and stage are both unusable: none of its fields is written"),
        Problem(PATH, "status", "expected a string, found a dict"),
        Problem(PATH, "stage", "expected a string, found a list"),
        Problem(PATH, "status", "missing or empty"),
        Problem(PATH, "stage", "missing or empty"),
    )


# -- kep-number ----------------------------------------------------------------------------------------


def test_kep_number_mismatch_with_directory_is_reported_and_directory_wins():
    path = "keps/sig-node/2043-pod-resource-concrete-assigments/kep.yaml"
    kep = parse(path, kep_number="kep-number: 1884")
    assert (kep.number, kep.slug) == (2043, "pod-resource-concrete-assigments")
    assert kep.problems == (Problem(path, "kep-number", "declares '1884' but the directory says 2043"),)


def test_non_numeric_kep_number_with_numbered_directory_is_reported():
    kep = parse(kep_number="kep-number: TBD")
    assert kep.number == 5075
    assert kep.problems == (Problem(PATH, "kep-number", "declares 'TBD' but the directory says 5075"),)


@pytest.mark.parametrize("declared", ["0", "0000", "00", None])
def test_zero_padded_number_matches(declared):
    path = "keps/sig-architecture/0000-kep-process/kep.yaml"
    kep = parse(path, kep_number=None if declared is None else f'kep-number: "{declared}"')
    assert (kep.number, kep.slug) == (0, "kep-process")
    assert kep.problems == ()


def test_nested_layout_uses_the_kep_directory():
    path = "keps/sig-cluster-lifecycle/kubeadm/2501-kubeadm-phases-to-beta/kep.yaml"
    kep = parse(path, kep_number="kep-number: 2501")
    assert (kep.number, kep.slug, kep.path) == (2501, "kubeadm-phases-to-beta", path)


def test_unnumbered_directory_falls_back_to_kep_number():
    path = "keps/sig-foo/some-proposal/kep.yaml"
    kep = parse(path, kep_number="kep-number: 77")
    assert (kep.number, kep.slug) == (77, "some-proposal")
    assert kep.problems == ()


@pytest.mark.parametrize("line", [None, "kep-number: TBD"])
def test_no_number_anywhere_raises(line):
    path = "keps/sig-foo/some-proposal/kep.yaml"
    with pytest.raises(KepFileError) as info:
        parse(path, kep_number=line)
    declared = "" if line is None else "TBD"
    assert info.value.problem == Problem(
        path, "kep-number", f"no KEP number in the directory name or kep-number ({declared!r})"
    )
