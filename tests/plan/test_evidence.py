"""Unit tests for bot.plan.evidence (pure) and its wiring into the changelog, the JSON report and plan_sync."""

from __future__ import annotations

import pytest

from bot.model.finding import Finding
from bot.plan.diff import Change
from bot.plan.evidence import (
    Evidence,
    announced_stage,
    attach_evidence,
    build_index,
    evidence_for,
    find_discrepancies,
    gate_names,
    gate_owners,
    kep_refs,
    release_name,
    released,
    releases_needed,
    split_sentences,
)

try:
    from tests.notesutil import NOTES, P100, P200, P300, P400, P500, URL, entry, fixture_keps, notes_135, notes_137
except ImportError:  # pragma: no cover
    from notesutil import NOTES, P100, P200, P300, P400, P500, URL, entry, fixture_keps, notes_135, notes_137

PROSE = "check their prose, which may describe the feature in words only"


@pytest.fixture(scope="module")
def index():
    return build_index(NOTES, fixture_keps())


@pytest.mark.parametrize(
    "sentence, expected",
    [
        ("Promoted `X` to Beta.", ("beta", True)),
        ("Graduated the `X` feature to Stable.", ("stable", True)),
        ("Promoted the `X` feature gate to GA.", ("stable", True)),
        ("Promoted `A` from alpha to beta and enabled it by default.", ("beta", True)),
        (
            "Promoted `A` and `B` feature gates to beta, which were enabled by default if DRA went to GA.",
            ("beta", True),
        ),
        ("Added the `X` feature gate (Beta, default true in `v1.36`).", ("beta", True)),
        ("Added alpha support (behind the `X` feature gate) for tracking.", ("alpha", True)),
        ("Requires the `X` feature gate (alpha).", ("alpha", False)),
        ("Added a second Alpha of the widget API, behind the `X` feature gate.", ("alpha", False)),
        ("Added `Y` to the framework under the Alpha `X` feature gate.", ("alpha", False)),
        ("Locked the `X` feature gate to `true`.", ("stable", False)),
        ("The `X` feature gate is locked to enabled.", ("stable", False)),
        ("Enabled the `X` feature gate by default.", ("beta", False)),
        ("The `X` feature gate is enabled by default.", ("beta", False)),
        ("Removed the GA `X` feature gate (locked since `v1.33`).", ("removed", True)),
        ("Deprecated the `X` feature gate.", ("deprecated", True)),
        ("Demoted `A` and `B` feature gates to alpha from beta.", ("alpha", False)),
        ("Moved `X` back to Alpha.", ("alpha", False)),
        ("Added the `X` feature gate to gate leader election lock release on exit.", ("alpha", False)),
        # negation and side remarks announce nothing
        ("The feature gate will not graduate or be enabled by default in future Kubernetes releases.", ("", False)),
        (
            "Kubernetes now only uses the _structured parameters_ model (also alpha) for allocating devices.",
            ("", False),
        ),
        ("The `DRAControlPlaneController` feature gate, formerly alpha, is no longer available.", ("", False)),
        ("Added the Alpha `kubelet` metric `pod_level_resources_admission_total` to track adoption.", ("", False)),
        ("When using the Alpha `X` feature, IP address values are now validated more strictly.", ("", False)),
        ("The alpha DRA gRPC API is still available, but might be removed in future releases.", ("", False)),
        # introductions without a stage word are alpha (a state: a KEP adds gates after its alpha)
        ("Adds feature gate `X` which enables support for running kubelet in a user namespace.", ("alpha", False)),
        ('The new feature gate "X" is now available.', ("alpha", False)),
        ("Added the `X` feature gate, disabled by default.", ("alpha", False)),
        ("Added a new feature gate, `X` (enabled by default).", ("beta", False)),
        # an API group version promoted names the stage
        ("Promoted the API types Workload and PodGroup to `scheduling.k8s.io/v1beta1`.", ("beta", True)),
        ("Graduated the `resource.k8s.io/v1` API to GA.", ("stable", True)),
        ("Promoted the Workload API to `scheduling.k8s.io/v1`.", ("stable", True)),
        # an API introduced at vNalphaM / vNbetaM is that stage (1.35 notes #134564, #134722, KEP 4671); a field is not
        (
            "Introduced the `scheduling.k8s.io/v1alpha1` Workload API to express workload-level scheduling requirements.",
            ("alpha", False),
        ),
        (
            'Introduced the GangScheduling kube-scheduler plugin to support "all-or-nothing" scheduling using the '
            "`scheduling.k8s.io/v1alpha1` Workload API.",
            ("alpha", False),
        ),
        ("Added the `StorageVersionMigration` `v1beta1` API and removed the `v1alpha1` API.", ("beta", False)),
        ("Added the `foo` field to the `resource.k8s.io/v1beta1` API.", ("", False)),
        ("Added a `v1` API for widgets.", ("", False)),
        ("Introduced a structured and versioned `v1alpha1` response for the `statusz` endpoint.", ("", False)),
        ("It will be locked to enabled in a future release.", ("", False)),
        ("Prepared Pod validation to handle version skew for `X`'s beta graduation.", ("", False)),
        ("Added Alpha support for `Y`, which allows skipping node-level preparation.", ("alpha", True)),
        ("Introduced the Node Declared Features capability (alpha), which includes:", ("alpha", True)),
        ("Until CBOR graduates to Alpha, API servers will refuse to start if configured to use it.", ("", False)),
        ("Fixed a crash when the `X` feature gate is enabled.", ("", False)),
        # a bug fix: what was dropped is the bug, not the gate (1.37 #140262 on 2837's gate; watch said "removed")
        (
            "Fixed Pod-level MemoryQoS memory protection (`memory.min` and `memory.low`) being silently dropped "
            "during in-place Pod resize, and added Pod-level `memory.high` enforcement when the "
            "`PodLevelResources` feature gate is enabled.",
            ("", False),
        ),
        ("Removed the `X` feature gate, which was GA since v1.30.", ("removed", True)),
        ("Added `v1beta1` and `v1alpha1` APIs.", ("", False)),
    ],
)
def test_announced_stage(sentence, expected):
    assert announced_stage(sentence) == expected


def test_split_sentences_keeps_dots_inside_backticks_and_splits_lines():
    text = "Promoted `storage.k8s.io/v1` to GA. Enabled `X` by default.\n- Second line"
    assert split_sentences(text) == ["Promoted `storage.k8s.io/v1` to GA.", "Enabled `X` by default.", "Second line"]


def test_gate_names_declared_anywhere_undeclared_only_as_feature_gates():
    declared = {"Known"}
    assert gate_names("Promoted `Known` and `Unknown` feature gates to GA.", declared) == (("Known",), ("Unknown",))
    assert gate_names("Set `--feature-gates=Known=true` and the feature gate `Other`.", declared) == (
        ("Known",),
        ("Other",),
    )
    assert gate_names("Updated the `ImageLocality` plugin; see the gate docs.", declared) == ((), ())


def test_gate_names_bare_declared_names_are_case_sensitive_whole_words():
    declared = {"SchedulerAsyncPreemption", "EndpointSlice", "KUBECTL_KYAML"}
    assert gate_names("Now the feature flag (SchedulerAsyncPreemption) is enabled by default.", declared) == (
        ("SchedulerAsyncPreemption",),
        (),
    )
    assert gate_names("SchedulerAsyncPreemptionV2 and schedulerasyncpreemption stay prose.", declared) == ((), ())
    assert gate_names("Set KUBECTL_KYAML=false; EndpointSlice graduated, see `EndpointSlice`.", declared) == (
        ("KUBECTL_KYAML", "EndpointSlice"),
        (),
    )
    # a bare name before a code span or "metrics" is the API kind, not the gate; in backticks it still counts
    assert gate_names("The EndpointSlice `hints` field has graduated to GA.", declared) == ((), ())
    assert gate_names("Promoted several EndpointSlice metrics from Alpha to Beta stability.", declared) == ((), ())
    assert gate_names("The `EndpointSlice` `hints` field is GA.", declared) == (("EndpointSlice",), ())


def test_a_bare_gate_name_links_evidence_and_clears_not_in_notes():
    keps = fixture_keps()
    text = "Graduated the quiet feature to beta.\nNow the feature flag (QuietGate) is enabled by default."
    idx = build_index({"v1.35": notes_135(), "v1.36": {"9301": entry(9301, text)}, "v1.37": notes_137()}, keps)
    assert [(m.pr, m.excerpt, m.gates, m.links, m.stage, m.exact) for m in idx.for_kep(P400)] == [
        (9301, "Now the feature flag (QuietGate) is enabled by default.", ("QuietGate",), (P400,), "beta", False)
    ]
    change = Change("400", "m.md", 7, "beta", "", "v1.36", "retargeted", True, P400)
    assert evidence_for(idx, change, keps[3]) == (
        Evidence("v1.36", 9301, URL + "9301", "Now the feature flag (QuietGate) is enabled by default.", "beta", False),
    )
    found = find_discrepancies(idx, [keps[3]], released=released(idx.releases))
    assert found == [
        Finding(
            "not-in-notes",
            "400",
            P400,
            "v1.35",
            "kep.yaml says alpha in v1.35, but the v1.35 "
            "release notes never name KEP-400 or its gates (gates QuietGate); " + PROSE,
        )
    ]


def test_excerpts_are_never_cut_inside_a_code_span():
    keps = fixture_keps()
    head = "Promoted `WidgetGate` to beta, " + "x" * 195  # 226 characters; the cut is at 239
    texts = {
        "1": head + " (Beta in `v1.36`) and then some more words.",
        "2": head + " `v1` (Beta) and then some more words.",
        "3": "`WidgetGate " + "y" * 250 + "` promoted to beta.",
        "4": "Promoted `WidgetGate` to beta in `v1.36`.",
    }
    idx = build_index({"v1.36": {k: entry(int(k), t) for k, t in texts.items()}}, keps)
    assert [m.excerpt for m in idx.mentions] == [
        head + " (Beta in…",  # not "(Beta in `v1…"
        head + " `v1` (Beta)…",  # closed spans are kept
        "WidgetGate " + "y" * 227 + "…",  # a span from the start loses its backtick, not its text
        "Promoted `WidgetGate` to beta in `v1.36`.",
    ]
    assert [len(m.excerpt) for m in idx.mentions] == [236, 239, 239, 41]


def test_kep_refs_from_text_and_documentation():
    e = entry(
        1,
        "Added X (KEP-5491), see kep.k8s.io/4222.",
        documentation=[
            {"type": "KEP", "url": "https://github.com/kubernetes/enhancements/issues/2021"},
            {
                "type": "KEP",
                "url": "https://github.com/kubernetes/enhancements/tree/master/keps/sig-cluster-lifecycle/"
                "kubeadm/4656-add-kubelet-instance-configuration",
            },
            {"type": "KEP", "url": "https://github.com/kubernetes/enhancements/pull/5797"},
        ],
    )
    assert kep_refs(e) == ((2021, ""), (4222, ""), (4656, "add-kubelet-instance-configuration"), (5491, ""))


def test_gate_owners_is_many_to_many():
    owners = gate_owners(fixture_keps())
    assert owners["SharedGate"] == (P200, P300)
    assert owners["WidgetGate"] == (P100,)


def test_index_links_unique_gates_and_marks_shared_ones_ambiguous(index):
    by_pr = {(m.release, m.pr): m for m in index.mentions}
    assert index.releases == ("v1.35", "v1.36", "v1.37")
    assert [(m.release, m.pr) for m in index.mentions] == [
        ("v1.35", 9001),
        ("v1.35", 9002),
        ("v1.36", 9101),
        ("v1.36", 9103),
        ("v1.36", 9104),
        ("v1.36", 9105),
    ]
    shared = by_pr[("v1.36", 9103)]
    assert (shared.links, shared.ambiguous, shared.stage, shared.exact) == ((), (P200, P300), "beta", True)
    assert shared.excerpt == "Promoted `SharedGate` to beta."
    narrowed = by_pr[("v1.36", 9104)]  # the entry links KEP 300's enhancements issue
    assert (narrowed.links, narrowed.ambiguous, narrowed.refs) == ((P300,), (), (300,))
    ga = by_pr[("v1.36", 9105)]
    assert (ga.gates, ga.undeclared, ga.links, ga.stage) == (("WidgetGate",), ("MysteryGate",), (P100,), "stable")
    assert index.by_path[P200] == (3,)
    assert index.by_path[P300] == (3, 4)


def test_evidence_for_a_change_prefers_the_declared_release_and_flags_ambiguity(index):
    keps = {k.path: k for k in fixture_keps()}
    change = Change("300", "m.md", 5, "beta", "", "v1.36", "retargeted", True, P300)
    assert evidence_for(index, change, keps[P300]) == (  # the sure link first, the ambiguous one apart after it
        Evidence("v1.36", 9104, URL + "9104", "Graduated `SharedGate` to beta.", "beta", False),
        Evidence("v1.36", 9103, URL + "9103", "Promoted `SharedGate` to beta.", "beta", True),
    )
    stage = Change("100", "m.md", 4, "stage", "alpha", "beta", "promoted", True, P100)
    gone = Change("999", "m.md", 9, "status", "implementable", "", "missing-upstream", False, "")
    out = attach_evidence([stage, gone], index, keps.values())
    assert out[0].evidence == (
        Evidence(
            "v1.36",
            9101,
            URL + "9101",
            "Promoted the `WidgetGate` feature gate to Beta, enabled by default.",
            "beta",
            False,
        ),
        # the same release's GA note contradicts beta in v1.36: counter-evidence
        Evidence(
            "v1.36",
            9105,
            URL + "9105",
            "Promoted the `MysteryGate` and `WidgetGate` feature gates to GA.",
            "stable",
            False,
            True,
        ),
    )
    assert out[1] == gone


def test_discrepancies_a_to_d(index):
    found = find_discrepancies(
        index,
        fixture_keps(),
        released=released(index.releases),
        ids={P100: "100-widgets"},
        undeclared_sigs={"sig-node"},
    )
    assert found == [
        Finding(
            "not-in-notes",
            "300",
            P300,
            "v1.35",
            "kep.yaml says alpha in v1.35, but the v1.35 release notes "
            "never name KEP-300 or its gates (gates OtherGate, SharedGate); " + PROSE,
        ),
        Finding(
            "not-in-notes",
            "400",
            P400,
            "v1.35",
            "kep.yaml says alpha in v1.35, but the v1.35 release notes "
            "never name KEP-400 or its gates (gates QuietGate); " + PROSE,
        ),
        Finding(
            "not-in-notes",
            "400",
            P400,
            "v1.36",
            "kep.yaml says beta in v1.36, but the v1.36 release notes "
            "never name KEP-400 or its gates (gates QuietGate); " + PROSE,
        ),
        Finding(
            "stage-mismatch",
            "100-widgets",
            P100,
            "v1.36",
            "v1.36 notes say stable reached in v1.36; kep.yaml milestone.stable is not set",
            9105,
            URL + "9105",
            "Promoted the `MysteryGate` and `WidgetGate` feature gates to GA.",
        ),
        Finding(
            "ready-to-implement",
            "500",
            P500,
            "v1.35",
            "status implementable, but the stable milestone v1.35 is released: ready to mark implemented?",
        ),
        Finding(
            "undeclared-gate",
            "",
            "",
            "v1.36",
            "feature gate MysteryGate is announced (stable) but no kep.yaml declares it",
            9105,
            URL + "9105",
            "Promoted the `MysteryGate` and `WidgetGate` feature gates to GA.",
        ),
    ]


def test_the_newest_release_is_not_out_and_unindexed_releases_are_not_judged(index):
    assert released(["v1.37", "v1.35", "v1.36"]) == {"v1.35", "v1.36"}
    only_135 = build_index({"1.35": notes_135()}, fixture_keps())
    found = find_discrepancies(only_135, fixture_keps(), released={"v1.35"})
    assert [(d.kind, d.kep_id, d.release) for d in found] == [
        ("not-in-notes", "300", "v1.35"),
        ("not-in-notes", "400", "v1.35"),
        ("ready-to-implement", "500", "v1.35"),
    ]


def test_release_helpers():
    assert [release_name(x) for x in ("1.36", "v1.36", "release-1.36", "release-notes-1.9.json", "x")] == [
        "v1.36",
        "v1.36",
        "v1.36",
        "v1.9",
        None,
    ]
    assert releases_needed(fixture_keps()) == {"v1.33", "v1.34", "v1.35", "v1.36"}
