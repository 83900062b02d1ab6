"""Real-data acceptance for release notes as evidence: bundle HEAD + release notes 1.20-1.37 from ../shared.

Skipped when ../shared is absent, unless KEP_SYNC_REQUIRE_SHARED=1 (then it fails).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from bot.config import Config
from bot.model.kep import Problem
from bot.plan.evidence import build_index, find_discrepancies, gate_owners, released
from bot.plan.planner import plan_sync
from bot.sources.enhancements import load_snapshot
from bot.sources.release_notes import load_release_notes

pytestmark = pytest.mark.acceptance

SHARED = Path(__file__).resolve().parents[3] / "shared"
BUNDLE = SHARED / "data" / "enhancements-keps.bundle"
NOTES_DIR = SHARED / "data" / "release-notes"
PAGE_2026_03 = SHARED / "wiki" / "kubernetes-keps-implementation-matrix.2026-03-01.md"


@pytest.fixture(scope="module")
def data(request, tmp_path_factory):
    if not (BUNDLE.is_file() and NOTES_DIR.is_dir()):
        if os.environ.get("KEP_SYNC_REQUIRE_SHARED") == "1":
            pytest.fail(f"{SHARED} is required (KEP_SYNC_REQUIRE_SHARED=1) but missing")
        pytest.skip(f"{SHARED} not present")
    root = tmp_path_factory.mktemp("rn-accept")
    snapshot = load_snapshot(str(request.getfixturevalue("bundle_clone")), root / "cache")
    notes = load_release_notes(str(NOTES_DIR), root / "cache", None)
    return snapshot, notes, build_index(notes.notes, snapshot.all_keps())


def test_all_18_releases_are_read(data):
    _, notes, index = data
    assert notes.available == tuple(f"v1.{n}" for n in range(20, 38))
    assert index.releases == notes.available
    assert sum(len(v) for v in notes.notes.values()) == 5539
    assert notes.problems == ()


def test_every_1_36_graduation_sentence_naming_a_declared_gate_is_linked_to_its_keps(data):
    snapshot, _, index = data
    owners = gate_owners(snapshot.all_keps())
    graduations = [m for m in index.mentions if m.release == "v1.36" and m.stage and m.gates]
    # Gates named bare or in code: 35, all linked for sure, none ambiguous; a bare hit, "Promoted several
    # EndpointSlice metrics from Alpha to Beta stability." (#136368), is the API kind and is left out. A note read
    # as a whole adds #137346: "Added alpha support for manifest-based
    # admission control configuration (KEP-5793). When the `ManifestBasedAdmissionControlConfig` feature gate ...".
    assert len(graduations) == 36
    assert 136368 not in {m.pr for m in graduations}
    manifest = next(m for m in graduations if m.pr == 137346)
    assert (manifest.stage, manifest.exact, manifest.links) == (
        "alpha",
        True,
        ("keps/sig-api-machinery/5793-manifest-based-admission-control-config/kep.yaml",),
    )
    for m in graduations:
        linked = set(m.links) | set(m.ambiguous)
        for gate in m.gates:
            declarers = set(owners[gate])
            assert declarers <= linked or (declarers & set(m.links)), (m.pr, gate)
            if len(declarers) == 1:
                assert declarers <= set(m.links), (m.pr, gate)
    assert [m for m in graduations if m.ambiguous] == []
    by_pr = {m.pr: m for m in graduations}
    assert by_pr[136042].links == ("keps/sig-node/5328-node-declared-features/kep.yaml",)
    assert (by_pr[136042].stage, by_pr[136042].exact) == ("beta", True)
    assert by_pr[136912].links == ("keps/sig-storage/1710-selinux-relabeling/kep.yaml",)
    assert (by_pr[134556].stage, by_pr[134556].exact) == ("stable", False)  # "Locked ... to `true`"


def test_a_bare_gate_name_is_a_mention(data):
    snapshot, notes, index = data
    path = "keps/sig-scheduling/4832-async-preemption/kep.yaml"
    m = next(m for m in index.mentions if (m.release, m.pr) == ("v1.33", 130550))
    assert m.excerpt == "Now the feature flag (SchedulerAsyncPreemption) is enabled by default."
    assert (m.gates, m.links, m.stage, m.exact) == (("SchedulerAsyncPreemption",), (path,), "beta", False)
    found = find_discrepancies(index, snapshot.all_keps(), released=released(notes.available))
    assert [d for d in found if d.kep_path == path] == []  # was "not-in-notes" for v1.33 before


def test_the_excerpt_of_a_long_note_is_not_cut_inside_a_code_span(data):
    _, _, index = data
    m = next(m for m in index.mentions if (m.release, m.pr) == ("v1.36", 134947))
    assert m.excerpt == (
        "ACTION REQUIRED: DRA (Dynamic Resource Allocation) drivers and controllers now require "
        "granular RBAC permissions to update ResourceClaim statuses when the "
        "`DRAResourceClaimGranularStatusAuthorization` feature gate is enabled (Beta in…"
    )
    assert len(m.excerpt) == 234  # was 240, ending "(Beta in `v1.3…"
    assert [x.pr for x in index.mentions if x.excerpt.endswith("…") and x.excerpt.count("`") % 2] == []


def test_a_gate_declared_by_several_keps_is_shown_as_ambiguous(data):
    _, _, index = data
    m = next(m for m in index.mentions if (m.release, m.pr) == ("v1.28", 118816))
    assert m.excerpt == "`TopologyManagerPolicyOptions` feature-flag is promoted to beta and enabled by default."
    assert (m.links, m.ambiguous) == (
        (),
        (
            "keps/sig-node/3545-improved-multi-numa-alignment/kep.yaml",
            "keps/sig-node/4622-topologymanager-max-allowable-numa-nodes/kep.yaml",
        ),
    )


def test_hand_checked_discrepancies_are_found(data):
    snapshot, notes, index = data
    found = find_discrepancies(index, snapshot.all_keps(), released=released(notes.available))
    got = {(d.kind, d.kep_id, d.release, d.pr): d.message for d in found}
    assert got[("gate-typo", "3695", "v1.34", 132940)] == (  # the first release naming it
        "the v1.34 notes name feature gate KubeletPodResourcesDynamicResources; kep.yaml declares "
        "KubeletPodResourcesDynamicResource: likely a typo in kep.yaml (the notes are linked to this KEP as a near "
        "match)"
    )
    assert got[("stage-mismatch", "2371", "v1.26", 113609)] == (  # linked by its KEP number
        "v1.26 notes say alpha reached in v1.26; kep.yaml milestone.alpha is v1.29"
    )
    assert got[("stage-mismatch", "5647", "v1.36", 135462)] == (
        "v1.36 notes say beta reached by v1.36; kep.yaml milestone.beta is v1.37"
    )
    assert got[("stage-mismatch", "4656", "v1.36", 135742)] == (
        "v1.36 notes say stable reached in v1.36; kep.yaml milestone.stable is v1.35"
    )
    assert got[("stage-mismatch", "127", "v1.33", 130138)] == (
        "v1.33 notes say beta reached by v1.33; kep.yaml milestone.beta is v1.35"
    )
    assert got[("stage-mismatch", "4193", "v1.33", 129591)] == (
        "v1.33 notes say stable reached in v1.33; kep.yaml milestone.stable is v1.32"
    )
    assert got[("ready-to-implement", "4816", "v1.36", 0)] == (
        "status implementable, but the stable milestone v1.36 is released: ready to mark implemented?"
    )
    assert not any(d.release == "v1.37" and d.kind == "not-in-notes" for d in found)  # 1.37 is not out yet
    # Every KEP of bundle HEAD. Gates named bare count (e.g. KEP 4832 in v1.33; WinOverlay beta in v1.20 vs KEP
    # 5100's v1.33), and so do transitions linked by KEP number (e.g. 2371) and a gate introduced before kep.yaml's
    # alpha (e.g. MutatingAdmissionPolicy in v1.30 vs 3962's v1.32); undeclared gates only when asked for.
    # A note naming a gate counts for every KEP declaring it: 3838 borrows PodSchedulingReadiness (3521's), which
    # the v1.30 notes name, so "the v1.30 notes never name KEP-3838 or its gates" is not said (was 305).
    assert Counter(d.kind for d in found) == {
        "not-in-notes": 304,
        "stage-mismatch": 61,
        "ready-to-implement": 75,
        "gate-typo": 6,
    }


def test_real_sync_gets_evidence_and_keeps_its_changes(data, tmp_path):
    snapshot, _, _ = data
    pages = {"m.md": PAGE_2026_03.read_bytes()}
    asked = []

    def loader(wanted):  # as a real run: only the needed releases plus the newest two are read
        asked.append(sorted(wanted))
        return load_release_notes(str(NOTES_DIR), tmp_path / "cache", wanted)

    plain = plan_sync(Config(), snapshot, pages)
    with_notes = plan_sync(Config(), snapshot, pages, release_notes=loader)
    assert [c._replace(evidence=()) for c in with_notes.changes] == plain.changes
    assert [p.new for p in with_notes.pages] == [p.new for p in plain.pages]
    hit = {(c.kep_id, c.field): c.evidence[0].pr for c in with_notes.changes if c.evidence}
    assert hit[("4951", "stage")] == 140107  # "Promoted the `HPAConfigurableTolerance` feature gate to GA."
    assert "<details><summary>Needs review (" in with_notes.changelog.body
    # On the 2026-03-01 page, reading 10 of the 13 releases the changed KEPs name
    # (v1.16 is not in the source, v1.38 and v1.39 are not made yet): 34 changes, 16 with evidence. Needs review
    # covers the KEPs this run changes (23), not every row: 6 not-in-notes, 1 stage-mismatch (127), no
    # ready-to-implement (the changed KEPs' stable milestones are not released).
    assert asked == [
        [
            "v1.16",
            "v1.22",
            "v1.25",
            "v1.27",
            "v1.29",
            "v1.32",
            "v1.33",
            "v1.34",
            "v1.35",
            "v1.36",
            "v1.37",
            "v1.38",
            "v1.39",
        ]
    ]
    # Evidence only from the release kep.yaml names for the stage, all sure; Needs review is about the page's KEPs
    # only (no undeclared gates of 1.36/1.37; 3695's typo is in).
    assert (len(with_notes.changes), sum(1 for c in with_notes.changes if c.evidence)) == (34, 21)
    # 4563's EvictionRequest API, described by the v1.37 note #137050 ("the EvictionRequest and Eviction
    # resources"), and 5055's whole title in #138676 ("Promoted the DRA Device Taints and Tolerations feature to
    # GA"): each note names its KEP by its title, so it is evidence as the watch reads it, never "possible"
    assert [e for c in with_notes.changes for e in c.evidence if e.possible] == []
    named = [
        (c.kep_id, c.field, e.pr, e.stage) for c in with_notes.changes for e in c.evidence if e.pr in (137050, 138676)
    ]
    assert named == [("4563", "alpha", 137050, "alpha"), ("5055", "stage", 138676, "stable")]
    # Counter-evidence: one v1.37 note calls 5732's gate Alpha while kep.yaml moves 5732 to beta in v1.37.
    counter = [
        (c.kep_id, c.field, e.release, e.pr, e.stage) for c in with_notes.changes for e in c.evidence if e.counter
    ]
    assert counter == [("5732", "stage", "v1.37", 138274, "alpha")]
    assert (
        sum(1 for c in with_notes.changes if any(not (e.counter or e.possible) for e in c.evidence)) == 20
    )  # 18 + 4563, 5055
    assert [e for c in with_notes.changes for e in c.evidence if e.ambiguous] == []
    assert Counter(d.kind for d in with_notes.discrepancies) == {"not-in-notes": 6, "stage-mismatch": 1, "gate-typo": 1}
    # a milestone names v1.16, older than the newest release notes (v1.37) but not in the source
    assert [p for p in with_notes.problems if p.path == str(NOTES_DIR)] == [
        Problem(
            str(NOTES_DIR),
            "",
            f"release notes for v1.16 are not available from {NOTES_DIR}; evidence and checks for v1.16 were skipped",
        )
    ]


def test_the_stale_page_pull_request_body_fits_a_reviewers_minute(data, request, tmp_path):
    """The 2026-03-01 page against the bundle HEAD, with release notes and history, as the bot's pull request
    body on a GitHub wiki: "Needs a look" first, at most 6,000 visible characters outside collapsed
    ``<details>`` blocks."""
    from bot.commands.inputs import Inputs
    from bot.plan.changelog.body import visible_lines
    from bot.plan.changelog.signals import visible_text
    from bot.plan.planner import page_url

    snapshot, _, _ = data
    clone = request.getfixturevalue("bundle_clone")
    config = Config.model_validate(
        {
            "enhancements": str(clone),
            "cache_dir": str(tmp_path / "cache"),
            "publish": "github",
            "wiki": {"repo": "acme/wiki", "pages": ["matrix.md"]},
        }
    )
    base = "b" * 40
    plan = plan_sync(
        config,
        snapshot,
        {"matrix.md": PAGE_2026_03.read_bytes()},
        release_notes=lambda wanted: load_release_notes(str(NOTES_DIR), tmp_path / "cache", wanted),
        history=Inputs(config, snapshot=snapshot).provenance()[0],
        page_url=page_url(config, base),
        gate_history=Inputs(config, snapshot=snapshot).gate_origins(),
    )
    body = plan.changelog.body
    # summary 2, Needs a look 5, the legend 2, Settled 1, Graduations 5, Changes 27 (23 rows), 8 summary lines
    named = body.replace(str(clone), "enhancements")  # the figure must not depend on where the clone lives
    assert (visible_lines(body), len(visible_text(named))) == (50, 3780)
    assert body.split("\n")[2:3] == ["### Needs a look"]
    # each mark Needs a look uses (✗, off, ↺) explained right under it; without a gate list ✗ is a note's
    legend = next(line for line in body.split("\n") if line.startswith("Signs: "))
    assert body.split("\n").index(legend) < body.split("\n").index("### Graduations")
    assert legend == (
        "Signs: ↺ a released milestone rewritten; off a default turned off before release; ✗ a planned stage a note "
        "contradicts; ≠ a note of that release names another stage."
    )
    assert [line for line in body.splitlines() if line.startswith("<details>")] == [
        "<details><summary>Settled by the sources or unchanged here (6)</summary>",  # 4563: its v1.37 note
        "<details><summary>Released milestones rewritten (8)</summary>",
        "<details><summary>Needs review (8)</summary>",
        "<details><summary>Report only (not applied) (2)</summary>",
        "<details><summary>New KEPs to consider (36)</summary>",
        "<details><summary>Release notes cited (18)</summary>",
        "<details><summary>Problems (4)</summary>",
        "<details><summary>Controls</summary>",
    ]
    assert "JSON report holds" not in body
    rows = {line.split(" ", 2)[1]: line for line in body.splitlines() if line.startswith("| [")}
    # 5598 moves to v1.38, which has not shipped: no "none found"
    assert rows["[5598](https://kep.k8s.io/5598)"].endswith("| v1.38 not released yet |")
    # 5732: the v1.37 note calling its gate Alpha is counter-evidence (≠), and first in "Needs a look"
    note = "[#138274](https://github.com/kubernetes/kubernetes/pull/138274)"
    # v1.37 is the release in progress: its notes are a draft, never "none found" (and never "pending": the
    # Shipped column's sign)
    assert rows["[5732](https://kep.k8s.io/5732)"].endswith(
        f"| no v1.37 note announces beta<br>≠ v1.37 {note} says alpha |"
    )
    assert f"- ✗ [5732](https://kep.k8s.io/5732) beta v1.37: the v1.37 note {note} says alpha\n" in body
    # links land on the fact: the page line at the base revision, the kep.yaml key at the revision
    assert f"[L78](https://github.com/acme/wiki/blob/{base}/matrix.md#L78)" in rows["[5732](https://kep.k8s.io/5732)"]
    assert (
        f"[L25](https://github.com/kubernetes/enhancements/blob/{snapshot.revision}/keps/sig-scheduling/"
        "5732-topology-aware-workload-scheduling/kep.yaml#L25)"
    ) in rows["[5732](https://kep.k8s.io/5732)"]
    # a rewritten released milestone: the value kep.yaml gave before and the pull request that changed it
    assert (
        "- KEP [2033](https://kep.k8s.io/2033) beta: v1.35 → **v1.37** "
        f"([matrix.md:55](https://github.com/acme/wiki/blob/{base}/matrix.md#L55)); kep.yaml said v1.35 until "
        "[#5694 KEP-2033: KubeletInUserNamespace: postpone beta t…](https://github.com/kubernetes/enhancements/"
        "pull/5694) 2026-04-06"  # merged 2026-04-06 20:59 UTC: the day in UTC, as the watch prints it
    ) in body
