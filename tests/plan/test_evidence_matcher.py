"""The release-note matcher by kind of mistake, each on a small fixture of its own, exact values.

Kinds: 1 negation and side remarks; 2 a gate several KEPs declare; 3 introductions without "alpha"; 4 the
stage word in another sentence / the KEP linked in documentation; 5 API group version promotions; 6
do_not_publish entries; 7 a stage announced in an earlier release; 9 near-match gate typos; and the scope
of "Needs review". (Kind 8, a source without notes, is in tests/sources/test_release_notes.py.)
"""

from __future__ import annotations

import pytest

from bot.model.finding import Finding
from bot.model.kep import parse_kep
from bot.plan.diff import Change
from bot.plan.evidence import Evidence, build_index, evidence_for, find_discrepancies, review

try:
    from tests.notesutil import entry, kep_yaml
except ImportError:  # pragma: no cover
    from notesutil import entry, kep_yaml

URL = "https://github.com/kubernetes/kubernetes/pull/"
DOC = "https://github.com/kubernetes/enhancements/issues/"


def _kep(path: str, number: int, *, sig: str = "sig-node", **kw):
    text = kep_yaml(number, **kw).replace("owning-sig: sig-node", f"owning-sig: {sig}")
    return parse_kep(path, text.encode())


A = _kep("keps/sig-node/10-alpha-gate/kep.yaml", 10, stage="alpha", alpha="v1.36", gates=("WidgetAlphaGate",))
B = _kep("keps/sig-node/20-beta-api/kep.yaml", 20, stage="beta", alpha="v1.35", beta="v1.36")
S1 = _kep(
    "keps/sig-node/30-shared-one/kep.yaml", 30, stage="stable", beta="v1.35", stable="v1.36", gates=("SharedCore",)
)
S2 = _kep(
    "keps/sig-node/40-shared-two/kep.yaml",
    40,
    stage="stable",
    beta="v1.35",
    stable="v1.36",
    gates=("SharedCore", "OnlyTwoGate"),
)
E = _kep("keps/sig-node/50-early/kep.yaml", 50, stage="alpha", alpha="v1.36")
T = _kep(
    "keps/sig-node/60-typo/kep.yaml",
    60,
    status="implemented",
    stage="stable",
    beta="v1.35",
    stable="v1.36",
    gates=("PodResourcesDynamicResource",),
)
KEPS = [A, B, S1, S2, E, T]


def _change(kep, field: str, new: str) -> Change:
    return Change(str(kep.number), "m.md", 3, field, "", new, "retargeted", True, kep.path)


def _ev(index, kep, field):
    return [(e.release, e.pr, e.ambiguous) for e in evidence_for(index, _change(kep, field, kep.milestone(field)), kep)]


def test_negations_and_side_remarks_are_not_evidence():
    notes = {
        "v1.36": {
            "1": entry(
                1, "Added `WidgetAlphaGate` checks. The feature gate will not graduate or be enabled by default."
            ),
            "2": entry(2, "Removed the old widget path; `WidgetAlphaGate` (also alpha) is unaffected."),
            "3": entry(3, "Added the Alpha `kubelet` metric `widget_total` for `WidgetAlphaGate` users."),
            "4": entry(4, "When using the Alpha `WidgetAlphaGate` feature, names are validated more strictly."),
            "5": entry(5, "Added the `WidgetAlphaGate` feature gate (alpha)."),
        }
    }
    assert _ev(build_index(notes, KEPS), A, "alpha") == [("v1.36", 5, False)]


def test_a_shared_gate_goes_to_the_linked_kep_or_the_one_with_a_unique_gate_else_ambiguous_apart():
    notes = {
        "v1.36": {
            "1": entry(1, "Promoted the `SharedCore` feature gate to GA."),
            "2": entry(2, "Promoted `SharedCore` to GA.", documentation=[{"type": "KEP", "url": DOC + "30"}]),
            "3": entry(3, "Promoted the `SharedCore` and `OnlyTwoGate` feature gates to GA."),
        }
    }
    index = build_index(notes, KEPS)
    assert _ev(index, S1, "stable") == [("v1.36", 2, False), ("v1.36", 1, True)]
    assert _ev(index, S2, "stable") == [("v1.36", 3, False), ("v1.36", 1, True)]


def test_introductions_without_the_word_alpha_are_alpha():
    for text in (
        "Added the `WidgetAlphaGate` feature gate to enable widgets.",
        'The new feature gate "WidgetAlphaGate" is now available.',
        "Adds feature gate `WidgetAlphaGate` which enables widgets.",
        "Added the `WidgetAlphaGate` feature gate. This gate is disabled by default.",
    ):
        index = build_index({"v1.36": {"7": entry(7, text)}}, KEPS)
        assert _ev(index, A, "alpha") == [("v1.36", 7, False)], text


def test_the_whole_note_is_read_for_its_stage_and_for_a_kep_link_in_documentation():
    notes = {
        "v1.36": {
            "1": entry(1, "Graduated widget support to alpha. The `WidgetAlphaGate` feature gate is now available."),
            "2": entry(
                2,
                "Graduated typed widgets to beta.",
                documentation=[
                    {
                        "type": "KEP",
                        "url": "https://github.com/someone/enhancements/blob/abc/keps/sig-node/20-beta-api/README.md",
                    }
                ],
            ),
        }
    }
    index = build_index(notes, KEPS)
    assert _ev(index, A, "alpha") == [("v1.36", 1, False)]
    assert [m.excerpt for m in index.for_kep(A.path)] == [  # both sentences: where the stage comes from
        "Graduated widget support to alpha. … The `WidgetAlphaGate` feature gate is now available."
    ]
    assert _ev(index, B, "beta") == [("v1.36", 2, False)]


def test_api_group_version_promotions_name_the_stage():
    notes = {
        "v1.36": {
            "4": entry(
                4,
                "Promoted the Widget API types to `widgets.k8s.io/v1beta1`. Remove all "
                "`v1alpha2` objects before upgrading.",
                documentation=[{"type": "KEP", "url": "https://kep.k8s.io/20"}],
            )
        }
    }
    index = build_index(notes, KEPS)
    assert [(m.pr, m.stage, m.exact) for m in index.for_kep(B.path)] == [(4, "beta", True), (4, "beta", True)]
    assert _ev(index, B, "beta") == [("v1.36", 4, False)]  # one item per pull request


def test_an_api_introduced_at_v1alpha1_is_alpha_for_the_linked_kep():  # 1.35 notes #134564, #136976
    doc = [{"type": "KEP", "url": "https://kep.k8s.io/20"}]
    notes = {
        "v1.35": {
            "7": entry(7, "Introduced the `widgets.k8s.io/v1alpha1` Widget API to express widgets.", documentation=doc)
        },
        "v1.36": {
            "8": entry(
                8,
                "Introduced `widgets.k8s.io/v1alpha2` Widget API. Removed `widgets.k8s.io/v1alpha1` Widget API.",
                documentation=doc,
            )
        },
    }
    index = build_index(notes, KEPS)
    assert [(m.pr, m.stage, m.exact) for m in index.for_kep(B.path)] == [(7, "alpha", False), (8, "alpha", False)]
    assert _ev(index, B, "alpha") == [("v1.35", 7, False)]
    assert find_discrepancies(index, [B], released={"v1.35", "v1.36"}) == []  # a later alpha version: no mismatch


def test_withdrawn_entries_are_never_evidence():
    notes = {
        "v1.35": {"1": entry(1, "Fixed the `WidgetAlphaGate` docs.")},
        "v1.36": {"2": entry(2, "Promoted the `WidgetAlphaGate` feature gate to alpha.", do_not_publish=True)},
        "v1.37": {},
    }
    index = build_index(notes, KEPS)
    assert [m.pr for m in index.for_kep(A.path)] == [1]
    assert _ev(index, A, "alpha") == []
    found = find_discrepancies(index, [A], released={"v1.35", "v1.36"})
    assert [(d.kind, d.release) for d in found] == [("not-in-notes", "v1.36")]


def test_an_earlier_release_is_a_stage_mismatch_not_support():
    notes = {
        "v1.34": {
            "9": entry(9, "Added alpha support for early widgets.", documentation=[{"type": "KEP", "url": DOC + "50"}])
        },
        "v1.36": {},
        "v1.37": {},
    }
    index = build_index(notes, KEPS)
    assert _ev(index, E, "alpha") == []
    assert find_discrepancies(index, [E], released={"v1.34", "v1.36"}) == [
        Finding(
            "not-in-notes",
            "50",
            E.path,
            "v1.36",
            "kep.yaml says alpha in v1.36, but the v1.36 release "
            "notes never name KEP-50 or its gates (no feature gate declared); check their prose, which may "
            "describe the feature in words only",
        ),
        Finding(
            "stage-mismatch",
            "50",
            E.path,
            "v1.34",
            "v1.34 notes say alpha reached in v1.34; kep.yaml milestone.alpha is v1.36",
            9,
            URL + "9",
            "Added alpha support for early widgets.",
        ),
    ]


def test_a_near_match_gate_is_linked_and_reported_as_a_likely_kep_yaml_typo():
    notes = {"v1.36": {"5": entry(5, "Promoted the `PodResourcesDynamicResources` feature gate to GA.")}}
    index = build_index(notes, KEPS)
    assert _ev(index, T, "stable") == [("v1.36", 5, False)]
    m = index.for_kep(T.path)[0]
    assert (m.undeclared, m.near) == ((), (("PodResourcesDynamicResources", "PodResourcesDynamicResource"),))
    assert find_discrepancies(index, [T], released={"v1.36"}) == [
        Finding(
            "gate-typo",
            "60",
            T.path,
            "v1.36",
            "the v1.36 notes name feature gate PodResourcesDynamicResources; "
            "kep.yaml declares PodResourcesDynamicResource: likely a typo in kep.yaml (the notes are linked to this KEP "
            "as a near match)",
            5,
            URL + "5",
            "Promoted the `PodResourcesDynamicResources` feature gate to GA.",
        )
    ]
    # short names and names two runs apart are not near matches
    far = build_index(
        {"v1.36": {"6": entry(6, "Promoted the `PodResourcesDynamicResourcesGetter` feature gate to GA.")}}, KEPS
    )
    assert far.for_kep(T.path) == []


def test_needs_review_is_about_the_page_unless_review_all_for_the_pages_sigs():
    notes = {
        "v1.35": {},
        "v1.36": {
            "1": entry(1, "Promoted the `NodeOnlyGate` feature gate to GA."),
            "2": {**entry(2, "Promoted the `StorageOnlyGate` feature gate to GA."), "sigs": ["storage"]},
        },
        "v1.37": {},
    }
    available = ("v1.35", "v1.36", "v1.37")
    page = review([], [A], KEPS, notes, available)
    assert [d.kind for d in page.discrepancies] == ["not-in-notes"]  # about A, on the page
    wide = review([], [A], KEPS, notes, available, scope="all")
    assert [(d.kind, d.message) for d in wide.discrepancies][1:] == [
        ("undeclared-gate", "feature gate NodeOnlyGate is announced (stable) but no kep.yaml declares it")
    ]
    storage = _kep("keps/sig-storage/70-vol/kep.yaml", 70, sig="sig-storage", stage="alpha", alpha="v1.37")
    both = review([], [A], KEPS, notes, available, scope="all", page_keps=[A, storage])
    assert [d.message.split()[2] for d in both.discrepancies[1:]] == ["NodeOnlyGate", "StorageOnlyGate"]


def test_evidence_shows_sure_notes_and_ambiguous_ones_apart_in_the_report():
    from bot.model.snapshot import build_snapshot
    from bot.plan.changelog import body as changelog

    change = _change(S1, "stable", "v1.36")._replace(
        evidence=(
            Evidence("v1.36", 2, URL + "2", "Promoted `SharedCore` to GA.", "stable", False),
            Evidence("v1.36", 1, URL + "1", "Promoted the `SharedCore` feature gate to GA.", "stable", True),
        )
    )
    snap = build_snapshot([], "fixture", "abc123")
    item = changelog.report(snap, [change], [], discrepancies=[])["changes"][0]
    assert [e["pr"] for e in item["evidence"]] == [2]
    assert [e["pr"] for e in item["ambiguous_evidence"]] == [1]


def test_a_later_note_naming_the_release_of_the_stage_is_evidence_for_that_release():
    notes = {
        "v1.37": {
            "8": entry(
                8,
                "Locked the `SharedCore` feature gate to enabled, with `OnlyTwoGate`. The "
                "shared core reached GA in `v1.36` and can no longer be disabled.",
            )
        }
    }
    index = build_index(notes, KEPS)
    assert _ev(index, S2, "stable") == [("v1.37", 8, False)]
    assert [(m.when, m.excerpt) for m in index.for_kep(S2.path)] == [
        (
            "v1.36",
            "Locked the `SharedCore` feature gate to enabled, with `OnlyTwoGate`. … The shared core reached GA "
            "in `v1.36` and can no longer be disabled.",
        )
    ]


def test_a_bare_gate_word_in_a_note_that_links_another_kep_is_prose():
    policy = _kep(
        "keps/sig-node/80-policy-options/kep.yaml", 80, stage="stable", stable="v1.36", gates=("WidgetPolicyOptions",)
    )
    keps = KEPS + [policy]
    notes = {
        "v1.36": {
            "9": entry(
                9, "SharedCore Policy Options support is GA.", documentation=[{"type": "KEP", "url": DOC + "80"}]
            ),
            "10": entry(10, "Promoted `SharedCore` to GA.", documentation=[{"type": "KEP", "url": DOC + "80"}]),
        }
    }
    index = build_index(notes, keps)
    assert [(m.pr, m.gates) for m in index.for_kep(policy.path)] == [(9, ()), (10, ("SharedCore",))]
    assert [m.pr for m in index.for_kep(S1.path)] == [10]  # in code it still counts (shared: ambiguous)
    assert index.for_kep(S1.path)[0].ambiguous == (S1.path, S2.path)


# --- a KEP named in passing by a note about another KEP's gate ------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Promoted the `WidgetAlphaGate` feature gate to beta. Related: KEP-20.",
        "Promoted the WidgetAlphaGate feature gate to beta. Related: KEP-20.",
        "WidgetAlphaGate is now beta. See KEP-20.",
    ],
)
def test_a_note_about_another_keps_gate_does_not_speak_for_a_kep_it_mentions_in_passing(text):
    """A stage sentence naming only A's gate says nothing about B, which the entry names in passing: B gets no
    mention from it (no confirmation, no counter evidence), A gets it surely."""
    index = build_index({"v1.36": {"7": entry(7, text)}}, KEPS)
    assert index.for_kep(B.path) == []
    assert [(m.pr, m.stage, m.links, m.refs) for m in index.for_kep(A.path)] == [(7, "beta", (A.path,), (20,))]


def test_a_kep_named_in_the_stage_sentence_its_documentation_or_by_its_own_gate_is_spoken_for():
    borrower = _kep("keps/sig-node/70-borrower/kep.yaml", 70, stage="beta", beta="v1.36", gates=("WidgetAlphaGate",))
    keps = KEPS + [borrower]
    owners = {"WidgetAlphaGate": (A.path,), "SharedCore": (S1.path, S2.path), "OnlyTwoGate": (S2.path,)}
    notes = {
        "v1.36": {
            "1": entry(1, "Promoted `WidgetAlphaGate` (KEP-20) to beta."),  # the sentence names KEP 20 itself
            "2": entry(2, "Promoted `WidgetAlphaGate` to beta.", documentation=[{"type": "KEP", "url": DOC + "20"}]),
            "3": entry(3, "Promoted `WidgetAlphaGate` to beta. See KEP-70."),  # 70 declares the gate too
        }
    }
    index = build_index(notes, keps, owners)  # the gate's owner per history: A alone, 70 borrows it
    assert [(m.pr, m.stage) for m in index.for_kep(B.path)] == [(1, "beta"), (2, "beta")]
    assert [(m.pr, m.links) for m in index.for_kep(borrower.path)] == [(3, (A.path, borrower.path))]
    assert [m.pr for m in index.for_kep(A.path)] == [1, 2, 3]
