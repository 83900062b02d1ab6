"""Which kep.yaml fields may be written (Kep.untrusted) and the report-only consistency checks
(bot/model/kep.py, bot/model/consistency.py)."""

from __future__ import annotations

import pytest

from bot.model.consistency import check, is_released, release_in_progress
from bot.model.kep import TRUST_FIELDS, KepFileError, Problem, parse_kep

PATH = "keps/sig-apps/1050-merge/kep.yaml"
HEAD = "title: t\nkep-number: 1050\nstatus: implementable\nstage: beta\nlatest-milestone: v1.35\nfeature-gates: []\n"
NO_MAPPING = "kep.yaml has no milestone mapping, so it says nothing about milestones"


def _checked(kep):
    """``check(kep)`` as ``(fields, message)`` pairs; every finding has kind ``inconsistent``, the KEP's number
    as ``kep_id``, its kep.yaml path and no release."""
    found = check(kep)
    assert [(f.kind, f.kep_id, f.kep_path, f.release) for f in found] == [
        ("inconsistent", str(kep.number), kep.path, "")
    ] * len(found)
    return [(f.fields, f.message) for f in found]


def parse(text: str):
    return parse_kep(PATH, text.encode())


def test_a_merge_key_in_milestone_is_honoured():
    kep = parse(HEAD + "defaults: &ms\n  alpha: v1.33\nmilestone:\n  <<: *ms\n  beta: v1.35\n")
    assert kep.milestones == (("alpha", "v1.33"), ("beta", "v1.35"))
    assert (kep.problems, kep.untrusted) == ((), ())


def test_a_merge_that_cannot_be_applied_makes_the_file_unreadable_naming_the_line():
    with pytest.raises(KepFileError) as info:
        parse(HEAD + "milestone:\n  <<: v1.33\n")
    assert info.value.problem == Problem(
        PATH, "", "not valid YAML at line 8: expected a mapping or a list of mappings to merge, found a scalar"
    )


@pytest.mark.parametrize("tail", ["", "milestone:\n", "milestone: ~\n", "milestone: ''\n"])
def test_no_milestone_mapping_says_nothing_about_milestones(tail):
    kep = parse(HEAD + tail)
    assert kep.milestones == ()
    assert kep.untrusted == (("alpha", NO_MAPPING), ("beta", NO_MAPPING), ("stable", NO_MAPPING))
    assert kep.problems == ()  # 176 KEPs at the bundle HEAD: reported per row, where a cell is kept


@pytest.mark.parametrize(
    "tail, key", [("milestones:\n  alpha: v1.30\n", "'milestones'"), ("Milestone:\n  alpha: v1.30\n", "'Milestone'")]
)
def test_a_milestone_mapping_spelled_otherwise_is_named_and_not_read(tail, key):
    kep = parse(HEAD.replace("feature-gates: []", "feature_gates: []") + tail)
    assert (
        kep.distrust("alpha")
        == f"kep.yaml has no milestone mapping (it has {key}:), so it says nothing about milestones"
    )
    assert kep.distrust("feature_gates") == (
        "kep.yaml has no feature-gates list (it has 'feature_gates':), so it says nothing about feature gates"
    )


@pytest.mark.parametrize(
    "tail, found", [("milestone: v1.30\n", "'v1.30'"), ("milestone: [v1.30]\n", "a list (1 item)")]
)
def test_a_milestone_that_is_not_a_mapping_is_reported_and_not_trusted(tail, found):
    kep = parse(HEAD + tail)
    why = "kep.yaml's milestone is not a mapping"
    assert kep.untrusted == (("alpha", why), ("beta", why), ("stable", why))
    assert kep.problems == (Problem(PATH, "milestone", f"expected a mapping, found {found}"),)


@pytest.mark.parametrize("tail", ["milestone: {}\n", "milestone:\n  alpha:\n  beta: ''\n"])
def test_a_real_mapping_with_no_targets_is_trusted(tail):
    kep = parse(HEAD + tail)
    assert (kep.untrusted, kep.problems) == ((), ())
    assert kep.milestone("alpha") == ""


@pytest.mark.parametrize(
    "gates, why",
    [
        ("", "kep.yaml has no feature-gates list, so it says nothing about feature gates"),
        ("feature-gates:\n", "kep.yaml has no feature-gates list, so it says nothing about feature gates"),
        ("feature-gates: Foo\n", "kep.yaml's feature-gates is not a list"),
        (
            "feature-gates:\n  - name: Foo\n  - components: [x]\n",
            "feature-gates[1] in kep.yaml has no name, so the list is incomplete",
        ),
    ],
)
def test_feature_gates_that_say_nothing_or_not_all_are_not_trusted(gates, why):
    kep = parse(HEAD.replace("feature-gates: []\n", gates) + "milestone: {}\n")
    assert kep.untrusted == (("feature_gates", why),)


def test_an_empty_feature_gates_list_says_none():
    kep = parse(HEAD + "milestone: {}\n")
    assert (kep.untrusted, kep.gates()) == ((), ())


def test_a_milestone_that_is_a_list_is_not_trusted_for_that_stage_only():
    kep = parse(HEAD + "milestone:\n  alpha: [v1.30]\n  beta: v1.35\n")
    assert kep.untrusted == (("alpha", "milestone.alpha in kep.yaml is a list, not a milestone"),)
    assert kep.problems == (Problem(PATH, "milestone.alpha", "expected a string, found a list"),)


@pytest.mark.parametrize("key, meant", [("GA", "stable"), ("ga", "stable"), ("Beta", "beta")])
def test_a_milestone_key_spelled_otherwise_is_reported_and_its_stage_not_trusted(key, meant):
    kep = parse(HEAD + f"milestone:\n  alpha: v1.30\n  {key}: v1.36\n")
    assert kep.untrusted == ((meant, f"kep.yaml spells milestone.{meant} as '{key}'"),)
    assert kep.problems == (
        Problem(PATH, f"milestone.{key}", f"is not a milestone key; did you mean '{meant}'? {meant} is not written"),
    )


@pytest.mark.parametrize(
    "text, key, lines, fields",
    [
        (HEAD + "milestone:\n  alpha: v1.30\n  alpha: v1.31\n", "milestone.alpha", (8, 9), ("alpha",)),
        (
            HEAD + "milestone:\n  alpha: v1.30\nmilestone:\n  beta: v1.31\n",
            "milestone",
            (7, 9),
            ("alpha", "beta", "stable"),
        ),
        (HEAD + "status: implemented\nmilestone: {}\n", "status", (3, 7), ("status",)),
        (
            HEAD.replace("feature-gates: []", "feature-gates:\n  - name: A\n    name: B") + "milestone: {}\n",
            "feature-gates[0].name",
            (7, 8),
            ("feature_gates",),
        ),
    ],
)
def test_a_key_given_twice_makes_its_fields_ambiguous(text, key, lines, fields):
    kep = parse(text)
    why = f"{key} is given twice in kep.yaml (lines {lines[0]} and {lines[1]})"
    assert kep.untrusted == tuple((f, why) for f in fields)
    assert kep.problems == (
        Problem(
            PATH,
            key,
            f"given twice (lines {lines[0]} and {lines[1]}); the value is "
            f"ambiguous, so {', '.join(fields)} is not written",
        ),
    )


def test_a_key_given_twice_that_writes_nothing_is_still_reported():
    kep = parse(HEAD + "milestone:\n  alpha: v1.30\n  beta: v1.36\ntitle: u\nlatest-milestone: v1.36\n")
    assert kep.untrusted == (("latest_milestone", "latest-milestone is given twice in kep.yaml (lines 5 and 11)"),)
    assert kep.problems == (
        Problem(PATH, "title", "given twice (lines 1 and 10); YAML requires unique keys, the last value is read"),
        Problem(PATH, "latest-milestone", "given twice (lines 5 and 11); the value is ambiguous, so it is not used"),
    )
    assert (
        _checked(kep) == []
    )  # stage beta, milestone.beta v1.36 after latest-milestone: not judged on an ambiguous one
    assert _checked(parse(HEAD + "milestone:\n  alpha: v1.30\n  beta: v1.36\n")) == [
        (("beta",), "kep.yaml's milestone.beta v1.36 is later than latest-milestone v1.35 although the stage is beta")
    ]
    assert release_in_progress([kep, kep, kep]) is None


@pytest.mark.parametrize(
    "text, line, reason",
    [
        (HEAD + "---\ntitle: again\n", 7, "but found another document"),
        (HEAD + "milestone:\n  ? [alpha, beta]\n  : v1.30\n", 8, "a key is a sequence, not a name"),  # a complex key
    ],
)
def test_yaml_the_loader_cannot_read_makes_the_file_unreadable_with_its_line(text, line, reason):
    with pytest.raises(KepFileError) as info:
        parse(text)
    assert info.value.problem == Problem(PATH, "", f"not valid YAML at line {line}: {reason}")


TEMPLATE_COPY = (
    "title: KEP Template\nkep-number: 5000\nstatus: provisional|implementable|implemented\n"
    "stage: alpha|beta|stable\nlatest-milestone: v1.19\nmilestone:\n  alpha: v1.19\n  beta: v1.20\n"
)


def test_a_template_copy_writes_none_of_its_fields():
    kep = parse(TEMPLATE_COPY)
    why = (
        "kep.yaml is a copy of the KEP template (status 'provisional|implementable|implemented', "
        "stage 'alpha|beta|stable')"
    )
    assert kep.untrusted == tuple((f, why) for f in TRUST_FIELDS)
    assert kep.problems[0] == Problem(PATH, "", f"{why}: none of its fields is written")


def test_two_template_placeholders_with_a_real_status_and_stage_are_a_template_copy():
    kep = parse(
        "kep-number: 5000\nauthors:\n  - '@jane.doe'\nstatus: implementable\nstage: alpha\n"
        "milestone:\n  alpha: v1.19\n  beta: v1.20\n  stable: v1.22\nfeature-gates:\n  - name: MyFeature\n"
    )
    assert (
        kep.distrust("alpha")
        == "kep.yaml is a copy of the KEP template (authors '@jane.doe', feature-gates 'MyFeature')"
    )


@pytest.mark.parametrize(
    "text",
    [
        "title: KEP Template\nkep-number: 85\nstatus: implemented\nstage: stable\nmilestone:\n  stable: v1.21\n",
        "kep-number: 85\nstatus: implemented\nstage: stable\nlatest-milestone: v1.19\nmilestone:\n  alpha: v1.19\n"
        "  beta: v1.20\n  stable: v1.22\n",  # KEPs of that time really targeted the template's sample milestones
        "kep-number: 85\nstatus: provisional\nstage: alpha\ncreation-date: yyyy-mm-dd\nmilestone: {}\n",
    ],
)
def test_one_sample_value_or_the_template_title_is_not_a_template_copy(text):
    assert parse_kep("keps/sig-apps/85-pdb/kep.yaml", (text + "feature-gates: []\n").encode()).untrusted == ()


@pytest.mark.parametrize(
    "status, stage, untrusted",
    [
        ("superseded", "", True),
        ("imlpemented", "alpha (deprecated)", True),
        ("implementable", "", False),
        ("imlpemented", "stable", False),
    ],
)
def test_a_record_whose_status_and_stage_are_both_unusable_writes_nothing(status, stage, untrusted):
    kep = parse(
        f"kep-number: 1050\nstatus: {status}\nstage: '{stage}'\nmilestone:\n  alpha: v1.30\nfeature-gates: []\n"
    )
    why = "kep.yaml's status and stage are both unusable"
    fields = ("status", "stage", "alpha", "beta", "stable", "feature_gates")
    assert kep.untrusted == (tuple((f, why) for f in fields) if untrusted else ())
    if untrusted:
        assert set(f for f, _ in kep.untrusted) == set(TRUST_FIELDS)
        assert kep.problems[0] == Problem(
            PATH, "", "kep.yaml's status and stage are both unusable: none of its fields is written"
        )


# -- consistency checks ------------------------------------------------------------------------------


def kep_with(status="implementable", stage="alpha", latest="v1.34", **milestones):
    ms = "".join(f"  {k}: {v}\n" for k, v in milestones.items()) or "  alpha:\n"
    return parse(f"kep-number: 1050\nstatus: {status}\nstage: {stage}\nlatest-milestone: {latest}\nmilestone:\n{ms}")


def test_a_consistent_kep_with_planned_later_stages_has_no_finding():
    assert _checked(kep_with(alpha="v1.33", beta="v1.35", stable="v1.37")) == []


@pytest.mark.parametrize("beta", ["v1.34", "v1.33"])
def test_stage_alpha_while_beta_is_not_after_latest_milestone(beta):
    assert _checked(kep_with(alpha="v1.31", beta=beta)) == [
        (
            ("stage", "beta"),
            f"kep.yaml says stage alpha but milestone.beta {beta} is not after latest-milestone "
            "v1.34; the stage may not have been updated",
        )
    ]


def test_stage_beta_while_stable_is_not_after_latest_milestone():
    assert _checked(kep_with(stage="beta", latest="v1.36", alpha="v1.30", beta="v1.32", stable="v1.36")) == [
        (
            ("stage", "stable"),
            "kep.yaml says stage beta but milestone.stable v1.36 is not after latest-milestone "
            "v1.36; the stage may not have been updated",
        )
    ]


def test_stage_stable_with_no_stable_milestone():
    assert _checked(kep_with(status="implemented", stage="stable", alpha="v1.30", beta="v1.32")) == [
        (("stage", "stable"), "kep.yaml says stage stable but gives no stable milestone")
    ]


def test_stage_stable_without_a_milestone_mapping_is_left_to_the_mapping_problem():
    assert _checked(parse("kep-number: 1050\nstatus: implemented\nstage: stable\nlatest-milestone: v1.16\n")) == []


def test_implemented_with_stage_beta():
    assert _checked(kep_with(status="implemented", stage="beta", alpha="v1.30", beta="v1.32")) == [
        (("status", "stage"), "kep.yaml says status implemented but stage beta")
    ]


def test_a_milestone_later_than_a_higher_stages():
    assert _checked(kep_with(alpha="v1.34", beta="v1.33", latest="v1.35")) == [
        (
            ("stage", "beta"),
            "kep.yaml says stage alpha but milestone.beta v1.33 is not after latest-milestone "
            "v1.35; the stage may not have been updated",
        ),
        (("alpha", "beta"), "kep.yaml's milestone.alpha v1.34 is later than milestone.beta v1.33"),
    ]


def test_a_reached_stage_milestone_after_latest_milestone():
    assert _checked(kep_with(stage="beta", latest="v1.34", alpha="v1.33", beta="v1.35")) == [
        (("beta",), "kep.yaml's milestone.beta v1.35 is later than latest-milestone v1.34 although the stage is beta")
    ]


def test_untrusted_records_are_not_checked():
    assert _checked(parse(TEMPLATE_COPY)) == []


def test_release_in_progress_needs_two_kep_yaml_files_and_one_percent():
    keps = [kep_with(latest="v1.37")] * 2 + [kep_with(latest="v1.38"), kep_with(latest="v1.36"), kep_with(latest="TBD")]
    assert release_in_progress(keps) == (1, 37)
    assert release_in_progress(keps[2:]) is None
    many = [kep_with(latest="v1.36")] * 300 + [kep_with(latest="v1.37")] * 5 + [kep_with(latest="v1.38")] * 3
    assert release_in_progress(many) == (1, 37)  # 4 needed of 308: three KEPs planning ahead open no release
    assert release_in_progress(many[:303]) == (1, 36)  # 3 of 303 name v1.37: it is not open yet


@pytest.mark.parametrize(
    "value, released",
    [("v1.36", True), ("1.36", True), ("v1.37", False), ("v1.38", False), ("TBD", False), ("", False)],
)
def test_is_released(value, released):
    assert is_released(value, (1, 37)) is released
    assert is_released(value, None) is False
