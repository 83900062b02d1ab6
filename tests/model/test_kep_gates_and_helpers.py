"""bot.model.kep: feature gates, whole-file failures, the milestone helpers and the KEP templates (the fields, their
values and problems are tests/model/test_kep.py's)."""

from __future__ import annotations

import textwrap

import pytest

from bot.model.kep import (
    JUNK_GATE_NAMES,
    KepFileError,
    Problem,
    is_template,
    milestone_key,
    normalize_milestone,
    parse_kep,
    same_milestone,
)
from tests.model.kepcases import PATH, VALID_STATUSES, parse

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
