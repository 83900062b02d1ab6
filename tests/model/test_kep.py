"""Unit tests for bot.model.kep: parse_kep, the milestone helpers and the problems it reports."""

from __future__ import annotations

import textwrap

import pytest

from bot.model.consistency import check
from bot.model.kep import (
    DEPRECATION_STAGES,
    JUNK_GATE_NAMES,
    STAGES,
    STATUSES,
    Kep,
    KepFileError,
    Problem,
    is_template,
    load_yaml,
    milestone_key,
    normalize_milestone,
    parse_kep,
    same_milestone,
)

PATH = "keps/sig-scheduling/5075-dra-consumable-capacity/kep.yaml"
VALID_STATUSES = "provisional, implementable, implemented, deferred, rejected, withdrawn, replaced"
VALID_STAGES = "alpha, beta, stable, deprecated, disabled, removed"


def kep_yaml(**overrides: str | None) -> bytes:
    """A clean kep.yaml; ``overrides`` replace (or with ``None`` drop) top-level lines by key."""
    fields = {
        "title": "title: DRA consumable capacity",
        "kep-number": 'kep-number: "5075"',
        "owning-sig": "owning-sig: sig-scheduling",
        "status": "status: implementable",
        "creation-date": "creation-date: 2025-01-30",
        "last-updated": 'last-updated: "2025-06-11"',
        "stage": "stage: alpha",
        "latest-milestone": 'latest-milestone: "v1.34"',
        "milestone": 'milestone:\n  alpha: "v1.34"\n  beta: "v1.35"',
        "feature-gates": "feature-gates:\n  - name: DRAConsumableCapacity\n    components:\n      - kube-apiserver",
    }
    for key, value in overrides.items():
        key = key.replace("_", "-")
        if value is None:
            fields.pop(key, None)
        else:
            fields[key] = value
    return ("\n".join(fields.values()) + "\n").encode()


def parse(path: str = PATH, **overrides: str | None) -> Kep:
    return parse_kep(path, kep_yaml(**overrides))


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


# -- feature gates -------------------------------------------------------------------------------------


def test_junk_gate_names_are_kept_reported_and_excluded_from_gates():
    gates = textwrap.dedent("""\
        feature-gates:
          - name: n/a
          - name: None
          - name: ''
          - name: RealGate
            components: [kubelet]
          - name: "  AnotherGate  "
          - name: RealGate
          - name: NA
    """).rstrip()
    kep = parse(feature_gates=gates)
    assert kep.feature_gates == ("n/a", "None", "", "RealGate", "AnotherGate", "RealGate", "NA")
    assert kep.gates() == ("AnotherGate", "RealGate")
    assert kep.problems == (
        Problem(PATH, "feature-gates[0].name", "'n/a' is a placeholder, not a gate"),
        Problem(PATH, "feature-gates[1].name", "'None' is a placeholder, not a gate"),
        Problem(PATH, "feature-gates[2].name", "'' is a placeholder, not a gate"),
        Problem(PATH, "feature-gates[6].name", "'NA' is a placeholder, not a gate"),
    )


def test_yaml_null_gate_name_is_a_placeholder():
    kep = parse(feature_gates="feature-gates:\n  - name: ~\n  - name:\n  - name: null")
    assert kep.gates() == ()
    assert [p.key for p in kep.problems] == ["feature-gates[0].name", "feature-gates[1].name", "feature-gates[2].name"]


@pytest.mark.parametrize(
    "line", ["feature-gates: null", "feature-gates:", "feature-gates: ~", "feature-gates: []", None]
)
def test_null_or_empty_feature_gates_are_fine(line):
    kep = parse(feature_gates=line)
    assert kep.feature_gates == ()
    assert kep.gates() == ()
    assert kep.problems == ()


def test_gate_entries_without_a_name_are_reported():
    kep = parse(feature_gates="feature-gates:\n  - components: [kubelet]\n  - JustAString\n  - name: [a]\n  - name: Ok")
    assert kep.feature_gates == ("Ok",)
    assert kep.problems == (
        Problem(PATH, "feature-gates[0]", "entry has no name: a mapping (1 item)"),
        Problem(PATH, "feature-gates[1]", "entry has no name: 'JustAString'"),
        Problem(PATH, "feature-gates[2]", "entry has no name: a mapping (1 item)"),
    )


def test_feature_gates_that_are_not_a_list_are_reported():
    assert parse(feature_gates="feature-gates: SomeGate").problems == (
        Problem(PATH, "feature-gates", "expected a list, found 'SomeGate'"),
    )
    assert parse(feature_gates="feature-gates:\n  name: SomeGate").problems == (
        Problem(PATH, "feature-gates", "expected a list, found a mapping (1 item)"),
    )


def test_gates_method_sorts_dedupes_and_drops_junk():
    kep = parse()._replace(feature_gates=("b", "a", "b", "N/A", " none ", "TBD", "-", "", "c"))
    assert kep.gates() == ("a", "b", "c")


def test_junk_gate_names_are_lowercase():
    assert {"n/a", "none", "", "na"} <= JUNK_GATE_NAMES
    assert all(name == name.lower() for name in JUNK_GATE_NAMES)


# -- whole-file failures --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"title: a\nstatus: [unclosed\n", "not valid YAML at line 3: did not find expected ',' or ']'"),
        (b"title: a\n  bad: x\n", "not valid YAML at line 2: mapping values are not allowed in this context"),
        (b"title: 'x\n", "not valid YAML at line 2: found unexpected end of stream"),
        (b"a: 1\n---\nb: 2\n", "not valid YAML at line 2: but found another document"),
        (b"- a\n- b\n", "not a YAML mapping (top level is list)"),
        (b"just some text\n", "not a YAML mapping (top level is str)"),
        (b"", "file is empty"),
        (b"title: a\x00\n", "not valid YAML at character 8: control characters are not allowed (#x0000)"),
        (b"\xff\xfetitle: x\n", "not UTF-8 (invalid start byte at byte 0)"),
    ],
)
def test_unusable_files_raise_kep_file_error_naming_path_and_line(data, message):
    with pytest.raises(KepFileError) as info:
        parse_kep(PATH, data)
    assert info.value.problem == Problem(PATH, "", message)
    assert str(info.value) == f"{PATH}: {message}"
    assert isinstance(info.value, ValueError)


def test_problem_str():
    assert (
        str(Problem("keps/a/1-b/kep.yaml", "stage", "missing or empty"))
        == "keps/a/1-b/kep.yaml: stage: missing or empty"
    )
    assert str(Problem("keps/a/1-b/kep.yaml", "", "broken")) == "keps/a/1-b/kep.yaml: broken"


def test_several_problems_come_in_file_order():
    kep = parse(
        status="status: imlpemented",
        stage="stage:",
        creation_date="creation-date: 2025-30-01",
        kep_number="kep-number: 1",
        latest_milestone="latest-milestone: TBD",
        milestone="milestone:\n  alpha: 0.0\n  beta: 1.35",
        feature_gates="feature-gates:\n  - name: n/a",
    )
    assert kep.problems == (
        Problem(PATH, "", "kep.yaml's status and stage are both unusable: none of its fields is written"),
        Problem(PATH, "kep-number", "declares '1' but the directory says 5075"),
        Problem(PATH, "status", f"'imlpemented' is not a valid status ({VALID_STATUSES})"),
        Problem(PATH, "stage", "missing or empty"),
        Problem(PATH, "creation-date", "'2025-30-01' is not a valid date (YYYY-MM-DD)"),
        Problem(PATH, "latest-milestone", "'TBD' is not a release milestone (vMAJOR.MINOR)"),
        Problem(PATH, "milestone.alpha", "'0.0' is not a release milestone (vMAJOR.MINOR)"),
        Problem(PATH, "milestone.beta", "'1.35' lacks the 'v' prefix (read as v1.35)"),
        Problem(PATH, "feature-gates[0].name", "'n/a' is a placeholder, not a gate"),
    )


# -- milestone helpers ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("v1.30", "v1.30"),
        ("1.30", "v1.30"),
        (" v1.9 ", "v1.9"),
        ("v01.030", None),
        ("v1.036", None),
        ("v2.0", "v2.0"),
        ("v0.1", "v0.1"),
        ("0.0", None),
        ("v0.0", None),
        ("TBD", None),
        ("x.y", None),
        ("", None),
        ("v1.21, v1.37", None),
        ("V1.30", None),
        ("v1.30.0", None),
        ("v1", None),
        ("1.3a", None),
        ("-", None),
    ],
)
def test_normalize_milestone(value, expected):
    assert normalize_milestone(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("v1.30", (1, 30)),
        ("1.9", (1, 9)),
        ("v1.100", (1, 100)),
        ("v2.0", (2, 0)),
        ("0.0", None),
        ("TBD", None),
        ("", None),
    ],
)
def test_milestone_key(value, expected):
    assert milestone_key(value) == expected


def test_milestone_key_orders_numerically():
    values = ["v1.10", "1.9", "v1.30", "v1.3", "v2.0"]
    assert sorted(values, key=milestone_key) == ["v1.3", "1.9", "v1.10", "v1.30", "v2.0"]


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("1.30", "v1.30", True),
        ("v1.30", "v1.30", True),
        (" v1.30", "v01.30 ", False),
        ("v1.36", "v1.036", False),
        ("", "-", True),
        ("-", "—", True),
        ("", "", True),
        ("", " ", True),
        ("TBD", "TBD", True),
        ("TBD", "tbd", True),
        ("0.0", "0.0", True),
        ("0.0", "", True),
        ("", "TBD", True),
        ("x.y", "-", True),
        ("v1.21, v1.37", "v1.21, v1.37", True),
        ("v1.21, v1.37", "", False),
        ("v1.30", "v1.31", False),
        ("v1.30", "", False),
        ("v1.30", "TBD", False),
        ("v1.30", "0.0", False),
        ("v1.3", "v1.30", False),
    ],
)
def test_same_milestone(a, b, expected):
    assert same_milestone(a, b) is expected
    assert same_milestone(b, a) is expected


# -- templates --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("keps/NNNN-kep-template/kep.yaml", True),
        ("keps/sig-cloud-provider/providers/0000-cloud-provider-template/kep.yaml", True),
        ("keps/sig-node/5978-cluster-resource-claim-template/kep.yaml", False),
        ("keps/sig-cloud-provider/providers/2530-alibaba-cloud/kep.yaml", False),
        ("keps/sig-x/NNNN-kep-template/kep.yaml", False),
    ],
)
def test_is_template(path, expected):
    assert is_template(path) is expected


def test_hostile_values_give_short_messages_and_ascii_numbers_only():
    bomb = (
        b"a0: &a0 [x, x, x, x, x, x, x, x, x]\n"
        + b"".join(
            b"a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n" % ((i, i) + (i - 1,) * 9)
            for i in range(1, 9)
        )
        + b"milestone: *a8\nstatus: implementable\nstage: alpha\n"
    )
    with pytest.raises(KepFileError) as info:  # 9**8 paths: refused as a whole, never walked or quoted
        parse_kep("keps/sig-x/9001-bad/kep.yaml", bomb)
    assert info.value.problem == Problem(
        "keps/sig-x/9001-bad/kep.yaml",
        "",
        "not usable YAML at line 1: aliases expand to more than 20,000 mappings and sequences (an alias bomb?)",
    )
    small = parse_kep(
        "keps/sig-x/9001-bad/kep.yaml",
        b"".join(bomb.splitlines(keepends=True)[:3]) + b"milestone: *a2\nstatus: implementable\nstage: alpha\n",
    )  # 81 paths: read
    assert [p.message for p in small.problems if p.key == "milestone"] == ["expected a mapping, found a list (9 items)"]
    assert parse(kep_number='kep-number: "²"').problems[0] == Problem(
        PATH, "kep-number", "declares '²' but the directory says 5075"
    )
    with pytest.raises(KepFileError, match="no KEP number"):
        parse_kep("keps/sig-x/٧٥٣-sidecar/kep.yaml", b"title: x\n")
    assert normalize_milestone("v1." + "9" * 5000) is None
    long_status = parse(status="status: " + "x" * 5000).problems[0].message
    assert long_status.startswith("'xxx") and "...'" in long_status and len(long_status) < 200


def test_a_key_given_twice_is_reported_with_both_lines_and_its_field_is_not_trusted():
    kep = parse_kep(
        PATH,
        b"title: a\nstage: alpha\nstatus: implementable\nstage: beta\nmilestone:\n  beta: v1.2\nfeature-gates: []\n",
    )
    assert kep.stage == "beta"
    assert kep.problems == (
        Problem(PATH, "stage", "given twice (lines 2 and 4); the value is ambiguous, so stage is not written"),
    )
    assert kep.untrusted == (("stage", "stage is given twice in kep.yaml (lines 2 and 4)"),)
    assert (kep.distrust("stage"), kep.distrust("status"), kep.distrust("beta")) == (
        "stage is given twice in kep.yaml (lines 2 and 4)",
        "",
        "",
    )


def test_malformed_gate_names_are_reported_and_never_used():
    kep = parse(feature_gates="feature-gates:\n  - name: Foo|Bar\n  - name: Good")
    assert kep.gates() == ("Good",)
    assert kep.problems == (Problem(PATH, "feature-gates[0].name", "'Foo|Bar' is not a feature gate name"),)
    assert kep.untrusted == (
        (
            "feature_gates",
            "feature-gates[0].name in kep.yaml is not a feature gate name ('Foo|Bar'), so the list is not trusted",
        ),
    )
    assert kep.withholds("feature_gates") is True


def test_a_gate_placeholder_is_no_gate_not_an_untrusted_list():
    kep = parse(feature_gates="feature-gates:\n  - name: n/a")
    assert (kep.gates(), kep.untrusted) == ((), ())
