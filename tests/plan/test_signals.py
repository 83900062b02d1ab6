"""Signals a reviewer can trust: gate ownership from the kep.yaml history, what a gate list says of a planned stage,
the state of each planned stage, a default turned off, possible evidence in prose. Hand-written KEPs, notes and
lists only (the real data: tests/acceptance/test_acceptance_signals.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.model.gates import lifecycle, parse_gate_list
from bot.model.history.declared import Declared, first_declared, origins, utc
from bot.model.history.log import NO_BLOB, SHALLOW, Commit, Version
from bot.model.note_text import default_off
from bot.plan.evidence import gates as G
from bot.plan.evidence.index import Evidence, gate_owners
from bot.plan.evidence.ownership import Ownership, decide, owners_with, shared_gates
from bot.plan.evidence.prose import distinctive_words, possible_evidence
from bot.plan.evidence.stage_state import (
    CONFIRMED,
    CONFIRMS,
    CONTRADICTED,
    COUNTER,
    ELSEWHERE,
    PENDING,
    POSSIBLE,
    TURNED_OFF,
    UNKNOWN,
    NoteRef,
    NotesView,
    PlannedStage,
    Verdict,
    assess,
)
from tests.syncutil import kep, snapshot

DRA = "keps/sig-scheduling/3063-dra/kep.yaml"
PODRES = "keps/sig-scheduling/3695-podres/kep.yaml"
STRUCTURED = "keps/sig-scheduling/4381-structured/kep.yaml"
SPEC = "keps/sig-scheduling/2837-spec/kep.yaml"
RESIZE = "keps/sig-scheduling/5419-resize/kep.yaml"


def _keps():
    return snapshot(
        kep(3063, "dra", status="withdrawn", gates=("DynamicResourceAllocation",)),
        kep(3695, "podres", status="implemented", gates=("DynamicResourceAllocation", "PodResourcesGet")),
        kep(
            4381,
            "structured",
            status="implemented",
            gates=("DynamicResourceAllocation",),
            extra='see-also:\n  - "/keps/sig-scheduling/3063-dra"\n',
        ),
        kep(2837, "spec", alpha="v1.33", beta="v1.34", gates=("PodLevelResources",)),
        kep(5419, "resize", alpha="v1.35", gates=("PodLevelResources",)),
    )


ORIGINS = {
    DRA: {"DynamicResourceAllocation": Declared("2022-06-23T10:00:00Z", "c1", 3064, "v1.26", 10)},
    PODRES: {"DynamicResourceAllocation": Declared("2023-02-09T10:00:00Z", "c2", 3700, "v1.27", 20)},
    STRUCTURED: {"DynamicResourceAllocation": Declared("2024-02-09T10:00:00Z", "c3", 4400, "v1.30", 30)},
    SPEC: {"PodLevelResources": Declared("2024-10-09T10:00:00Z", "c4", 4678, "v1.32", 40)},
    RESIZE: {"PodLevelResources": Declared("2025-06-01T10:00:00Z", "c5", 5420, "v1.35", 50)},
}


def _commit(sha: str, date: str, pr: int = 0, parent: str = "p") -> Commit:
    return Commit(sha, parent, date, f"subject #{pr}", pr, ())


def test_first_declared_reads_each_gate_s_first_version_and_what_the_kep_planned_then():
    path = "keps/sig-node/2837-spec/kep.yaml"
    timeline = [
        (
            Version(_commit("a" * 40, "2024-10-09T12:00:00+02:00", 4678), path, "b1"),
            {"feature-gates": "PodLevelResources", "latest-milestone": "v1.32", "milestone.alpha": "v1.32"},
        ),
        (Version(_commit("b" * 40, "2025-01-01T00:00:00Z"), path, "b2"), None),  # unreadable: it may have declared
        (
            Version(_commit("c" * 40, "2025-02-03T00:00:00Z", 5000), path, "b3"),
            {"feature-gates": "PodLevelResources, PodLevelResourcesFix", "milestone.alpha": "v1.33", "x": "TBD"},
        ),
    ]
    assert first_declared(timeline, {"a" * 40: 7}) == {
        "PodLevelResources": Declared("2024-10-09T10:00:00Z", "a" * 40, 4678, "v1.32", 7),
        "PodLevelResourcesFix": Declared("", "c" * 40, 5000, "v1.33", -1, "unreadable"),
    }
    later = [*timeline, (Version(_commit("f" * 40, "2025-03-01T00:00:00Z", 5100), path, "b5"), {"feature-gates": "X"})]
    assert first_declared(later)["X"] == Declared("2025-03-01T00:00:00Z", "f" * 40, 5100)
    # A shallow clone's boundary commit "adds" everything: the real date is older and unknown.
    shallow = [(Version(_commit("d" * 40, "2025-05-05T00:00:00Z", parent=SHALLOW), path, "b4"), timeline[0][1])]
    assert first_declared(shallow)["PodLevelResources"].date == ""
    # A version that could not be read may have declared the gate already; a deletion hides nothing.
    hidden = [(Version(_commit("e" * 40, "2024-01-01T00:00:00Z"), path, "b0"), None), *timeline]
    assert first_declared(hidden)["PodLevelResources"] == Declared("", "a" * 40, 4678, "v1.32", -1, "unreadable")
    deleted = [(Version(_commit("e" * 40, "2024-01-01T00:00:00Z"), path, NO_BLOB), None), *timeline]
    assert first_declared(deleted)["PodLevelResources"] == Declared("2024-10-09T10:00:00Z", "a" * 40, 4678, "v1.32")
    log = [_commit("c" * 40, "x"), _commit("a" * 40, "y")]  # newest first: a is the older one
    assert origins({path: timeline}, log)[path]["PodLevelResources"].order == 0
    assert (utc("2025-02-03T10:00:00+01:00"), utc("not a date")) == ("2025-02-03T09:00:00Z", "")


def test_the_first_declarer_owns_a_gate_and_a_withdrawn_one_hands_it_to_the_live_kep_linking_it():
    snap = _keps()
    keps = snap.all_keps()
    shared = shared_gates(keps, keps)
    assert shared == {
        "DynamicResourceAllocation": (DRA, PODRES, STRUCTURED),
        "PodLevelResources": (SPEC, RESIZE),
    }
    owned = decide(snap, shared, ORIGINS)
    assert owned == {
        "DynamicResourceAllocation": Ownership(
            "DynamicResourceAllocation",
            STRUCTURED,
            (DRA, PODRES, STRUCTURED),
            "declared first by KEP 3063 (#3064 2022-06-23), now withdrawn; passed to KEP 4381, which links it; "
            "KEP 3695 added it later",
            "v1.30",
            (DRA,),  # 3063 declared it first and passed it on: no borrower
        ),
        "PodLevelResources": Ownership(
            "PodLevelResources",
            SPEC,
            (SPEC, RESIZE),
            "declared first by KEP 2837 (#4678 2024-10-09); KEP 5419 added it later",
            "v1.32",
        ),
    }
    assert owned["DynamicResourceAllocation"].borrowers() == (PODRES,)
    assert owned["DynamicResourceAllocation"].as_report({DRA: "3063", PODRES: "3695", STRUCTURED: "4381"}) == {
        "gate": "DynamicResourceAllocation",
        "owner": "4381",
        "borrowers": ["3695"],
        "declarers": ["3063", "3695", "4381"],
        "why": "declared first by KEP 3063 (#3064 2022-06-23), now withdrawn; passed to KEP 4381, which links it; "
        "KEP 3695 added it later",
        "passed_from": ["3063"],
    }
    assert owned["PodLevelResources"].as_report({SPEC: "2837", RESIZE: "5419"}) == {
        "gate": "PodLevelResources",
        "owner": "2837",
        "borrowers": ["5419"],
        "declarers": ["2837", "5419"],
        "why": "declared first by KEP 2837 (#4678 2024-10-09); KEP 5419 added it later",
    }
    # The owner alone speaks for the gate; without an owner the gate stays shared as before.
    assert owners_with(keps, owned) == {
        "DynamicResourceAllocation": (STRUCTURED,),
        "PodResourcesGet": (PODRES,),
        "PodLevelResources": (SPEC,),
    }
    assert gate_owners(keps)["DynamicResourceAllocation"] == (PODRES, STRUCTURED)


def test_where_history_cannot_decide_no_owner_is_named_and_it_says_why():
    snap = _keps()
    shared = shared_gates(snap.all_keps(), snap.all_keps())

    def why(origins_: dict) -> dict[str, tuple[str, str]]:
        return {g: (o.owner, o.why) for g, o in decide(snap, shared, origins_).items()}

    no_history = {**ORIGINS, RESIZE: {}}
    assert why(no_history)["PodLevelResources"] == ("", "history cannot decide: no history of KEP 5419 declaring it")
    same = {**ORIGINS, RESIZE: {"PodLevelResources": ORIGINS[SPEC]["PodLevelResources"]}}
    assert why(same)["PodLevelResources"] == (
        "",
        "history cannot decide: KEPs 2837, 5419 declared it in the same commit",
    )
    shallow = {**ORIGINS, SPEC: {"PodLevelResources": Declared("", "c4", 4678, "v1.32", 40)}}
    assert why(shallow)["PodLevelResources"] == (
        "",
        "history cannot decide: KEP 2837 declared it before the first commit of a shallow clone",
    )
    unreadable = {**ORIGINS, RESIZE: {"PodLevelResources": Declared("", "c5", 5420, "v1.35", 50, "unreadable")}}
    assert why(unreadable)["PodLevelResources"] == (
        "",
        "history cannot decide: KEP 5419's kep.yaml could not be read before it declared it",
    )
    unlinked = snapshot(
        kep(3063, "dra", status="withdrawn", gates=("DynamicResourceAllocation",)),
        kep(3695, "podres", status="implemented", gates=("DynamicResourceAllocation",)),
        kep(4381, "structured", status="implemented", gates=("DynamicResourceAllocation",)),
    )
    found = decide(unlinked, shared_gates(unlinked.all_keps(), unlinked.all_keps()), ORIGINS)
    assert (found["DynamicResourceAllocation"].owner, found["DynamicResourceAllocation"].why) == (
        "",
        "history cannot decide: declared first by KEP 3063 (#3064 2022-06-23), now withdrawn; no live KEP "
        "declaring it links KEP 3063",
    )
    # Without the first-parent order the dates decide.
    by_date = {p: {g: d._replace(order=-1) for g, d in v.items()} for p, v in ORIGINS.items()}
    assert why(by_date)["PodLevelResources"][0] == SPEC


LIST = b"""
- name: PodLevelResources
  versionedSpecs:
  - {default: false, lockToDefault: false, preRelease: Alpha, version: "1.32"}
  - {default: true, lockToDefault: false, preRelease: Beta, version: "1.34"}
- name: QueueingHints
  versionedSpecs:
  - {default: false, lockToDefault: false, preRelease: Beta, version: "1.28"}
  - {default: true, lockToDefault: false, preRelease: Beta, version: "1.32"}
  - {default: true, lockToDefault: true, preRelease: GA, version: "1.34"}
- name: ExclusiveCPUs
  versionedSpecs:
  - {default: false, lockToDefault: false, preRelease: Alpha, version: "1.32"}
- name: TopologyAware
  versionedSpecs:
  - {default: false, lockToDefault: false, preRelease: Alpha, version: "1.36"}
- name: BindMountOptions
  versionedSpecs:
  - {default: false, lockToDefault: false, preRelease: Alpha, version: "1.37"}
"""


def _lc():
    gl, problems = parse_gate_list("list.yaml", LIST)
    assert problems == []
    return lifecycle("list.yaml", [gl])


def test_the_list_speaks_of_a_planned_stage_only_for_a_release_it_has_closed():
    lc = _lc()  # newest version v1.37: the release being made, closed up to v1.36
    assert (G.closed(lc, "v1.36"), G.closed(lc, "v1.37"), G.closed(lc, "v1.38")) == (True, False, False)
    assert G.verdict("TopologyAware", "beta", "v1.37", lc) == Verdict(
        PENDING, "TopologyAware alpha as of v1.36 (v1.37 not closed)"
    )
    assert G.verdict("BindMountOptions", "alpha", "v1.37", lc) == Verdict(
        PENDING, "BindMountOptions alpha in v1.37 (v1.37 not closed)"
    )
    assert G.verdict("PodLevelResources", "alpha", "v1.33", lc) == Verdict(
        CONTRADICTED, "PodLevelResources alpha in v1.32"
    )
    # a reading of the list explains kep.yaml's release: a beta turned on by default; no finding, said so
    assert G.readings(lc.gate("QueueingHints")[0], "beta") == [
        ("v1.28", "beta in v1.28"),
        ("v1.32", "beta in v1.28, on by default in v1.32"),
    ]
    assert G.verdict("QueueingHints", "beta", "v1.32", lc) == Verdict(
        CONFIRMED, "QueueingHints beta in v1.28, on by default in v1.32"
    )
    assert G.verdict("QueueingHints", "beta", "v1.33", lc) == Verdict(
        CONTRADICTED, "QueueingHints beta in v1.28, on by default in v1.32"
    )
    # a gate born beta says nothing of the alpha
    assert G.verdict("QueueingHints", "alpha", "v1.26", lc) == Verdict(
        UNKNOWN, "QueueingHints born beta in v1.28, so nothing of alpha"
    )
    # a stage reached before the KEP took the gate is no measure of its plan
    assert G.verdict("ExclusiveCPUs", "alpha", "v1.35", lc, since="v1.34") == Verdict(
        UNKNOWN, "ExclusiveCPUs alpha in v1.32, before this KEP took the gate (it planned v1.34 then)"
    )
    assert G.verdict("ExclusiveCPUs", "alpha", "v1.35", lc).state == CONTRADICTED


def test_the_owner_of_a_shared_gate_gets_its_findings_and_a_borrower_none():
    snap = snapshot(
        kep(2837, "spec", alpha="v1.33", beta="v1.34", gates=("PodLevelResources",)),
        kep(5419, "resize", alpha="v1.35", gates=("PodLevelResources",)),
        kep(
            4247,
            "hints",
            status="implemented",
            stage="stable",
            alpha="v1.26",
            beta="v1.32",
            stable="v1.34",
            gates=("QueueingHints",),
        ),
    )
    keps, lc = snap.all_keps(), _lc()
    shared = shared_gates(keps, keps, lambda g: G.listed_name(g, lc.names()) or g)
    owned = decide(snap, shared, ORIGINS)
    js = G.joins(keps, keps, lc, owned)
    assert (js[SPEC].gate, js[SPEC].since) == ("PodLevelResources", "v1.32")
    assert (js[RESIZE].gate, js[RESIZE].note) == (
        "",
        "PodLevelResources is borrowed: declared first by KEP 2837 (#4678 2024-10-09); KEP 5419 added it later",
    )
    assert [(f.kind, f.kep_id, f.release, f.message) for f in G.findings(keps, js, lc)] == [
        (
            "gate-stage-mismatch",
            "2837",
            "v1.33",
            "kep.yaml milestone.alpha is v1.33; the gate list shows PodLevelResources alpha in v1.32",
        )
    ]
    # without the history the gate is shared: nobody speaks for it, as before
    plain = G.joins(keps, keps, lc)
    assert plain[SPEC].gate == "" and G.findings(keps, plain, lc) == []


def _ref(role: str, pr: int, said: str = "", release: str = "v1.37") -> NoteRef:
    return NoteRef(release, pr, f"https://github.com/kubernetes/kubernetes/pull/{pr}", role, said)


def test_a_planned_stage_is_pending_while_its_release_is_open_unless_a_note_of_it_says_otherwise():
    open_ = {"closed": False, "why_open": "v1.37 is the release in progress"}
    announced = NotesView((_ref(CONFIRMS, 140081), _ref(TURNED_OFF, 141209)), True)
    assert assess(
        "2371", "p", "beta", "v1.37", **open_, gate=Verdict(PENDING, "X alpha (v1.37 not closed)"), notes=announced
    ) == PlannedStage(
        "2371",
        "p",
        "beta",
        "v1.37",
        PENDING,
        "v1.37 is the release in progress; the v1.37 notes announce it (#140081); the v1.37 note #141209 turned "
        "it off by default",
        "release",
        announced.notes,
    )
    counter = NotesView((_ref(COUNTER, 138274, "alpha"),), True)
    gate = Verdict(PENDING, "TopologyAware alpha as of v1.36 (v1.37 not closed)")
    found = assess("5732", "p", "beta", "v1.37", **open_, gate=gate, notes=counter)
    assert (found.state, found.reason, found.source) == (
        CONTRADICTED,
        "the v1.37 note #138274 says alpha",  # the list's reading of a release not closed is no second source
        "release notes",
    )


def test_a_closed_release_is_confirmed_contradicted_or_unknown_with_its_source():
    closed = {"closed": True, "why_open": ""}
    by_list = assess("127", "p", "stable", "v1.36", **closed, gate=Verdict(CONFIRMED, "U GA in v1.36"))
    assert (by_list.state, by_list.reason, by_list.source) == (
        CONFIRMED,
        "the gate list shows U GA in v1.36",
        "gate list",
    )
    later = NotesView((_ref(CONFIRMS, 134452, release="v1.35"),), True)
    no_gate = Verdict("", "several gates in the list (A, B): none is picked")
    by_notes = assess("4381", "p", "stable", "v1.34", **closed, gate=no_gate, notes=later)
    assert (by_notes.state, by_notes.reason, by_notes.source) == (
        CONFIRMED,
        "the v1.35 notes announce it in v1.34 (#134452); the gate list: several gates in the list (A, B): none is "
        "picked",
        "release notes",
    )
    elsewhere = NotesView((_ref(ELSEWHERE, 130138, "reached by v1.33", "v1.33"),), True)
    moved = assess("127", "p", "beta", "v1.35", **closed, notes=elsewhere)
    assert (moved.state, moved.reason, moved.notes) == (
        CONTRADICTED,
        "the v1.33 note #130138 says beta reached by v1.33, not v1.35",
        elsewhere.notes,
    )
    silent = assess("5030", "p", "alpha", "v1.35", **closed, gate=no_gate, notes=NotesView((), True))
    assert (silent.state, silent.reason, silent.source) == (
        UNKNOWN,
        "the gate list: several gates in the list (A, B): none is picked; no v1.35 note announces it",
        "gate list",
    )
    words = NotesView((_ref(POSSIBLE, 137050, release="v1.36"),), True)
    assert assess("4563", "p", "alpha", "v1.36", **closed, notes=words).reason == (
        "no v1.36 note announces it; possible evidence: #137050 (matched by title words)"
    )
    assert assess("1", "p", "alpha", "v1.16", **closed, notes=NotesView()).reason == "no release notes for v1.16"


def test_a_default_turned_off_is_read_only_as_an_act():
    assert [
        default_off(s)
        for s in (
            "Disabled the `PodLevelResourceManagers` feature gate by default because of critical issues.",
            "The `KMSv1` feature gate is now disabled by default.",
            "Set `X` to false by default, to match `Y`.",
            "Promoted the `PodAndContainerStatsFromCRI` feature gate to Beta, disabled by default.",
            "The `DRAWorkloadResourceClaims` feature gate remains disabled by default.",
            "The `X` feature gate (disabled by default) activates the following:",
            "The `X` feature gate will be disabled by default.",
        )
    ] == [True, True, True, False, False, False, False]


def test_a_note_describing_a_kep_in_words_is_possible_evidence_only():
    snap = snapshot(
        kep(4563, "eviction-request-api", alpha="v1.37", gates=("EvictionRequestAPI",)),
        kep(5729, "claims", alpha="v1.36", gates=("Claims",)),
    )
    keps = snap.all_keps()
    by = {k.number: k for k in keps}
    # titles are "KEP 4563 eviction-request-api" and "KEP 5729 claims": retitle through the loader's fields
    eviction = by[4563]._replace(title="EvictionRequest API")
    claims = by[5729]._replace(title="DRA: ResourceClaim Support for Workloads")
    text = "Added the `.spec.evictionResponders` Pod field, along with the EvictionRequest and Eviction resources."
    notes = {
        "v1.37": {
            "137050": {"text": text, "pr_number": 137050},
            "1": {"text": "Promoted the `EvictionRequestAPI` feature gate: the EvictionRequest API is beta."},
            "2": {"text": "The EvictionRequest docs moved. See KEP-4563."},
        },
        "v1.36": {str(n): {"text": f"Added `ResourceClaim` thing {n}."} for n in range(10, 17)},
    }
    words = distinctive_words([eviction, claims], notes)
    assert words == {  # ResourceClaim is in 7 notes: an API kind, not a KEP; the whole title can still match
        eviction.path: ("EvictionRequest",),
        claims.path: ("DRA ResourceClaim Support for Workloads",),
    }
    assert possible_evidence(notes, eviction, "alpha", words[eviction.path], {"EvictionRequestAPI"}) == (
        Evidence(
            "v1.37",
            137050,
            "https://github.com/kubernetes/kubernetes/pull/137050",
            text,
            "alpha",
            False,
            False,
            True,
        ),
    )
    assert possible_evidence(notes, eviction, "beta", words[eviction.path], {"EvictionRequestAPI"}) == ()
    prepared: dict = {}  # shared by many calls: each release's notes read once, the same answers
    for stage, evidence in (("alpha", 1), ("alpha", 1), ("beta", 0)):
        found = possible_evidence(notes, eviction, stage, words[eviction.path], {"EvictionRequestAPI"}, prepared)
        assert len(found) == evidence
    assert {release: [n.key for n in read] for release, read in prepared.items()} == {"v1.37": ["137050"]}


def test_a_kep_without_distinctive_words_is_matched_by_its_whole_title_as_one_run():
    snap = snapshot(
        kep(5004, "dra-extended-resource", stage="stable", beta="v1.36", stable="v1.37"),
        kep(6001, "device", beta="v1.37"),
        kep(6002, "device-plus", beta="v1.37"),
    )
    by = {k.number: k for k in snap.all_keps()}
    dra = by[5004]._replace(title="DRA Extended Resource")
    inner = by[6001]._replace(title="Device Taint Handling")  # a run of 6002's title: never matched whole
    outer = by[6002]._replace(title="Device Taint Handling for Pods")
    text = "Promoted the DRA extended resource feature to GA in `v1.37`."
    notes = {
        "v1.37": {
            "138488": {"text": text, "pr_number": 138488},
            "2": {"text": "Promoted the extended DRA resource to GA."},
            "3": {"text": "Promoted device taint handling to beta."},
        }
    }
    words = distinctive_words([dra, inner, outer], notes)
    assert words == {dra.path: ("DRA Extended Resource",), outer.path: ("Device Taint Handling for Pods",)}
    found = possible_evidence(notes, dra, "stable", words[dra.path], ())
    assert found == (
        Evidence("v1.37", 138488, "https://github.com/kubernetes/kubernetes/pull/138488", text, "stable", False, False, True),
    )  # fmt: skip
    assert possible_evidence(notes, outer, "beta", words[outer.path], ()) == ()


def test_a_release_the_notes_do_not_reach_is_said_so_not_called_a_draft():
    from bot.plan.evidence.index import build_index
    from bot.plan.signals import NotesRead, planned_stages

    snap = snapshot(
        *(kep(n, f"k{n}", alpha="v1.36", beta="v1.37", latest="v1.38") for n in (1, 2)),
    )
    keps = snap.all_keps()
    notes = {"v1.35": {"1": {"text": "Unrelated fix."}}, "v1.36": {"2": {"text": "Another fix."}}}
    read = NotesRead(build_index(notes, keps), ("v1.35", "v1.36"))
    found = planned_stages(snap, keps[:1], {keps[0].path: "1"}, lifecycle=None, joins={}, notes=read)
    none = planned_stages(snap, keps[:1], {}, lifecycle=None, joins={}, notes=NotesRead(build_index({}, keps), ()))
    assert [s.reason for s in none] == ["no release notes read", "no release notes read"]
    assert [(s.stage, s.release, s.state, s.reason) for s in found] == [
        ("alpha", "v1.36", PENDING, "the v1.36 release notes are a draft"),
        ("beta", "v1.37", PENDING, "the release notes read end at v1.36; no release notes for v1.37"),
    ]


def test_a_default_turned_back_on_is_no_default_turned_off():
    assert [
        default_off(s)
        for s in (
            "Set `Foo` to true by default.",
            "Reverted #12345, which disabled `Foo` by default.",
            "Reverted the change that turned off `Foo` by default.",
            "Reverted `Foo` to disabled by default.",
            "Set the `Foo` feature gate to false by default.",
        )
    ] == [False, False, False, True, True]


_VOCABULARY = ("Alpha", "Bravo", "Charlie", "Delta")


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.lists(st.sampled_from(_VOCABULARY), min_size=1, max_size=6), min_size=2, max_size=8))
def test_a_whole_title_matches_exactly_when_no_other_title_holds_it_as_a_run(titles):
    titles = [list(_VOCABULARY), list(_VOCABULARY), *titles]  # every word in 2+ titles: none is distinctive
    by = {k.number: k for k in snapshot(*(kep(7000 + i, f"k{i}") for i in range(len(titles)))).all_keps()}
    keps = [by[7000 + i]._replace(title=" ".join(words)) for i, words in enumerate(titles)]

    def held(run: list[str], other: list[str]) -> bool:  # the definition, read naively
        return any(other[i : i + len(run)] == run for i in range(len(other) - len(run) + 1))

    expected = {
        k.path: (k.title,)
        for i, k in enumerate(keps)
        if len(titles[i]) >= 3 and not any(held(titles[i], t) for j, t in enumerate(titles) if j != i)
    }
    assert distinctive_words(keps, {}) == expected


def test_a_common_word_stays_common_with_its_trailing_s_dropped():
    by = {k.number: k for k in snapshot(kep(2495, "k8s-mgmt"), kep(2496, "statuses")).all_keps()}
    common = by[2495]._replace(title="Kubernetes Cluster Management API")  # 'kubernetes' keyed as 'kubernete'
    statuses = by[2496]._replace(title="Pod Status Updates")  # every word common: never matched whole
    assert distinctive_words([common, statuses], {}) == {}
