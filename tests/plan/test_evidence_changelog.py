"""Release notes as evidence in the changelog, the report and plan_sync, and the note fields not trusted as given
(pull request numbers and URLs, over-long texts); the index, matching and discrepancies are
tests/plan/test_evidence.py's."""

from __future__ import annotations

import pytest

from bot.config import Config
from bot.model.kep import Problem
from bot.plan.changelog import body as changelog
from bot.plan.diff import Change
from bot.plan.evidence import (
    MAX_ENTRY_CHARS,
    MAX_PR,
    attach_evidence,
    build_index,
    field_text,
    find_discrepancies,
    gate_names,
    kep_refs,
    named_release,
    release_name,
    released,
    split_sentences,
)
from bot.plan.planner import plan_sync
from bot.sources.release_notes import ReleaseNotes

try:
    from tests.notesutil import NOTES, P100, P400, URL, entry, fixture_keps, fixture_snapshot, notes_136, notes_137
except ImportError:  # pragma: no cover
    from notesutil import NOTES, P100, P400, URL, entry, fixture_keps, fixture_snapshot, notes_136, notes_137


@pytest.fixture(scope="module")
def index():
    return build_index(NOTES, fixture_keps())


# -- changelog and report -------------------------------------------------------------------
def _changes(index):
    keps = fixture_keps()
    return attach_evidence(
        [
            Change("100", "m.md", 4, "stage", "alpha", "beta", "promoted", True, P100),
            Change("400", "m.md", 7, "stage", "alpha", "beta", "promoted", True, P400),
        ],
        index,
        keps,
    )


def test_render_adds_needs_review(index):
    snap = fixture_snapshot()
    found = find_discrepancies(index, fixture_keps(), released=released(index.releases), undeclared_sigs={"node"})
    body = changelog.render(snap, _changes(index), [], changelog.ChangelogInputs(discrepancies=found)).body
    assert f"<details><summary>Needs review ({len(found)})</summary>" in body
    assert (
        "| - | v1.36 | undeclared-gate: feature gate MysteryGate is announced (stable) but no kep.yaml declares "
        "it | [#9105](https://github.com/kubernetes/kubernetes/pull/9105): Promoted the `MysteryGate` and "
        "`WidgetGate` feature gates to GA. |"
    ) in body
    assert body == changelog.render(snap, _changes(index), [], changelog.ChangelogInputs(discrepancies=found)).body


def test_render_without_release_notes_is_unchanged(index):
    snap = fixture_snapshot()
    plain = [c._replace(evidence=()) for c in _changes(index)]
    assert changelog.render(snap, _changes(index), []) == changelog.render(snap, plain, [])
    assert "Evidence" not in changelog.render(snap, plain, []).body


def test_report_carries_evidence_and_discrepancies(index):
    snap = fixture_snapshot()
    changes = _changes(index)
    found = find_discrepancies(index, fixture_keps(), released=released(index.releases))
    data = changelog.report(snap, changes, [], discrepancies=found)
    assert data["changes"][0]["evidence"] == [
        {
            "release": "v1.36",
            "pr": 9101,
            "url": URL + "9101",
            "excerpt": "Promoted the `WidgetGate` feature gate to Beta, enabled by default.",
            "stage": "beta",
            "ambiguous": False,
        }
    ]
    assert data["changes"][1]["evidence"] == []
    assert data["discrepancies"][3] == {
        "kind": "stage-mismatch",
        "kep": "100",
        "kep_path": P100,
        "release": "v1.36",
        "message": "v1.36 notes say stable reached in v1.36; kep.yaml milestone.stable is not set",
        "pr": 9105,
        "url": URL + "9105",
        "excerpt": "Promoted the `MysteryGate` and `WidgetGate` feature gates to GA.",
    }
    plain = changelog.report(snap, changes, [])
    assert "discrepancies" not in plain and "evidence" not in plain["changes"][0]
    assert set(data) - set(plain) == {"discrepancies"}


# -- plan_sync ----------------------------------------------------------------------------

PAGE = (
    b"| KEP | Status | Alpha | Beta | GA |\n|---|---|---|---|---|\n"
    b"| [100](https://kep.k8s.io/100) | implementable / alpha | v1.35 | - | - |\n"
    b"| [400](https://kep.k8s.io/400) | implementable / beta | v1.35 | v1.36 | - |\n"
)


def test_plan_sync_asks_the_loader_for_the_changed_keps_releases():
    asked = []

    def loader(wanted):
        asked.append(sorted(wanted))
        return ReleaseNotes("fixture", ("v1.35", "v1.36", "v1.37"), dict(NOTES), ())

    plan = plan_sync(Config(), fixture_snapshot(), {"m.md": PAGE}, release_notes=loader)
    assert asked == [["v1.35", "v1.36"]]  # KEP 100 changed; KEP 400's row already agrees
    assert [(c.kep_id, c.field, [e.pr for e in c.evidence]) for c in plan.changes] == [
        ("100", "stage", [9101, 9105]),
        ("100", "beta", [9101, 9105]),
    ]  # 9105 (GA in v1.36) is counter-evidence
    assert [e.counter for e in plan.changes[0].evidence] == [False, True]
    assert [(d.kind, d.kep_id) for d in plan.discrepancies] == [  # KEP 400's row is not changed: not reviewed
        ("stage-mismatch", "100")
    ]  # the undeclared MysteryGate is no business of this page by default
    assert plan.report["changes"][1]["evidence"][0]["pr"] == 9101
    assert "<details><summary>Needs review (1)</summary>" in plan.changelog.body
    wide = plan_sync(
        Config.model_validate({"release_notes": {"review": "all"}}),
        fixture_snapshot(),
        {"m.md": PAGE},
        release_notes=loader,
    )
    assert [(d.kind, d.kep_id, d.message) for d in wide.discrepancies] == [
        ("stage-mismatch", "100", "v1.36 notes say stable reached in v1.36; kep.yaml milestone.stable is not set"),
        ("undeclared-gate", "", "feature gate MysteryGate is announced (stable) but no kep.yaml declares it"),
    ]


def test_plan_sync_names_needed_releases_the_source_has_no_notes_for():
    missing = "release notes for v1.35 are not available from fixture; evidence and checks for v1.35 were skipped"
    notes = ReleaseNotes("fixture", ("v1.36", "v1.37"), {"v1.36": notes_136(), "v1.37": notes_137()}, ())
    for given in (notes, lambda wanted: notes):  # read already, or through the loader
        plan = plan_sync(Config(), fixture_snapshot(), {"m.md": PAGE}, release_notes=given)
        assert [p for p in plan.problems if p.path == "fixture"] == [Problem("fixture", "", missing)]
        assert f"| fixture | - | {missing} |" in plan.changelog.body
        assert {"path": "fixture", "message": missing} in plan.report["problems"]


def test_plan_sync_without_release_notes_is_unchanged():
    plan = plan_sync(Config(), fixture_snapshot(), {"m.md": PAGE})
    assert plan.discrepancies == ()
    assert "discrepancies" not in plan.report
    assert [(c.kep_id, c.field, c.evidence) for c in plan.changes] == [("100", "stage", ()), ("100", "beta", ())]


# -- untrusted entries: skipped or read without the bad field, never a crash ------------------------------------


def test_pr_numbers_are_ascii_digits_in_range_else_absent():
    keps = fixture_keps()
    promoted = "Promoted `WidgetGate` to beta."
    entries = {
        "²": {"text": promoted},
        "١٢": {"text": promoted},
        "9" * 5000: {"text": promoted},
        "7": {"text": promoted, "pr_number": True},
        "8": {"text": promoted, "pr_number": 1.5},
        "9": {"text": promoted, "pr_number": 10**100},
        "x": {"text": promoted, "pr_number": -3},
        "1000000000": {"text": promoted},
        "11": {"text": promoted, "pr_number": 999_999_999},
    }
    idx = build_index({"v1.36": entries}, keps)
    assert [m.pr for m in idx.mentions] == [0, 0, 0, 0, 0, 7, 8, 9, 999_999_999]
    assert MAX_PR == 999_999_999


@pytest.mark.parametrize(
    "documentation",
    [
        5,
        "https://github.com/kubernetes/enhancements/issues/100",
        [1, "x", None, ["y"]],
        [{"url": 5}],
        {"url": "https://github.com/kubernetes/enhancements/issues/100"},
        None,
        True,
    ],
)
def test_documentation_of_the_wrong_shape_is_ignored(documentation):
    e = {"text": "Added X (KEP-5491).", "documentation": documentation, "markdown": ["KEP-1"]}
    assert kep_refs(e) == ((5491, ""),)
    idx = build_index({"v1.36": {"1": e | {"pr_url": {"not": "a url"}}}}, fixture_keps())
    assert [(m.pr, m.url, m.refs, m.excerpt) for m in idx.mentions] == [
        (1, "https://github.com/kubernetes/kubernetes/pull/1", (5491,), "Added X (KEP-5491).")
    ]


@pytest.mark.parametrize(
    "pr_url, expected",
    [
        ("https://github.com/kubernetes/kubernetes/pull/7", "https://github.com/kubernetes/kubernetes/pull/7"),
        ("https://github.com/kubernetes-sigs/kueue/pull/7", "https://github.com/kubernetes-sigs/kueue/pull/7"),
        ("https://github.com/kubernetes/kubernetes/pull/8", "https://github.com/kubernetes/kubernetes/pull/7"),
        (
            "https://x.example/|a|b|@evilhandle\n\n## injected heading\n",
            "https://github.com/kubernetes/kubernetes/pull/7",
        ),
        (
            "https://github.com/kubernetes/kubernetes/pull/7) [more](https://evil.example",
            "https://github.com/kubernetes/kubernetes/pull/7",
        ),
        ("https://github.com/kubernetes/kubernetes/pull/7\n", "https://github.com/kubernetes/kubernetes/pull/7"),
        ("javascript:alert(1)", "https://github.com/kubernetes/kubernetes/pull/7"),
        (None, "https://github.com/kubernetes/kubernetes/pull/7"),
    ],
)
def test_a_note_pr_url_is_kept_only_in_the_strict_github_pull_form(pr_url, expected):
    e = {"text": "Added X (KEP-5491).", "pr_url": pr_url, "pr_number": 7}
    idx = build_index({"v1.36": {"7": e}}, fixture_keps())
    assert [m.url for m in idx.mentions] == [expected]


def test_kep_numbers_and_releases_are_bounded_ascii_digits():
    e = {
        "text": "KEP-١٢٣, kep.k8s.io/²³, KEP-" + "9" * 5000 + ", KEP-123456, "
        "https://github.com/kubernetes/enhancements/issues/" + "4" * 5000 + " and KEP-42."
    }
    assert kep_refs(e) == ((42, ""),)
    assert [release_name(x) for x in ("v١.٣٦", "1." + "9" * 5000, "12345.6", "1.23456", "release-1.36")] == [
        None,
        None,
        None,
        None,
        "v1.36",
    ]
    assert named_release("Promoted `X` to beta in v1.٣٦.") is None
    assert named_release("Promoted `X` to beta in v1.36.") == "v1.36"


def test_a_deep_keps_url_path_is_read_in_bounded_steps():
    url = "https://github.com/kubernetes/enhancements/tree/master/keps/"
    assert kep_refs({"text": url + "sig-node/sub/4656-slug " + url + "a/b/c/d/1234-too-deep"}) == ((4656, "slug"),)


def test_only_the_first_max_entry_chars_of_a_text_are_indexed():
    keps = fixture_keps()
    filler = "x " * (MAX_ENTRY_CHARS // 2)
    text = "Promoted `WidgetGate` to beta.\n" + filler + "\nPromoted `SharedGate` to beta."
    idx = build_index({"v1.36": {"1": entry(1, text)}}, keps)
    assert [(m.gates, m.excerpt) for m in idx.mentions] == [(("WidgetGate",), "Promoted `WidgetGate` to beta.")]
    assert MAX_ENTRY_CHARS == 20_000
    assert field_text("a" * 30_000) == "a" * 20_000
    assert [field_text(v) for v in (5, None, ["a"], b"a")] == ["", "", "", ""]


def test_control_characters_in_a_text_cannot_forge_code_span_markers():
    sentence = "Promoted the feature gates `MysteryGate` and \x009\x00 to GA."
    assert gate_names(sentence, {"WidgetGate"}) == ((), ("MysteryGate",))
    assert split_sentences("A `b.c`\x01 d. Next") == ["A `b.c`  d.", "Next"]
    idx = build_index(
        {"v1.36": {"1": entry(1, sentence), "2": entry(2, "Promoted `WidgetGate`\x01 to beta.")}}, fixture_keps()
    )
    assert [(m.pr, m.undeclared, m.gates, m.stage) for m in idx.mentions] == [
        (1, ("MysteryGate",), (), "stable"),
        (2, (), ("WidgetGate",), "beta"),
    ]
