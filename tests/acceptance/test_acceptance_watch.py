"""Real-data acceptance for ``kep-sync watch``: the current page at the bundle's HEAD, the release notes 1.20-1.37
and the newer gate list (openshift-0b0e324c: 1.36 complete, 1.37 begun), all read in place from ../shared.

Every state below was checked by hand against ``git log --first-parent -p`` of each kep.yaml, the 1.37 notes
(``release-notes-1.37.json``) and the list: e.g. 5075's GA moved v1.37 -> v1.38 in #6102 (2026-06-09), 5732's
note #138274 says "the Alpha `TopologyAwareWorkloadScheduling` feature gate" while kep.yaml plans beta, 6132's
notes #138916 and #140959 say alpha. Skipped when ../shared is absent, failed when ``KEP_SYNC_REQUIRE_SHARED=1``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.commands.watch import run_watch
from bot.config import Config
from bot.model.kep import STAGES, normalize_milestone
from tests.acceptance.shareddata import LIST, NOTES, PAGE, PRESENT, REQUIRED, SHARED, WIKI

pytestmark = [pytest.mark.acceptance, pytest.mark.skipif(not PRESENT and not REQUIRED, reason=f"{SHARED} is absent")]

#: The state of each KEP of the current page planned in v1.37 (32 rows), plus the two whose GA slipped to v1.38.
STATES = {
    "contradicted": ["5732", "6132"],
    "slipped": ["5075", "5598"],
    "no sign yet": ["4680", "5007", "5325", "5679"],
    "on track": ["2837", "4438", "5304", "5554", "5941", "6122"],
    "landed": ["2021", "2033", "2371", "4563", "4671", "4817", "4951", "5030", "5055", "5328", "5526", "5710", "5729", "5836", "5945", "5963", "6012", "6072", "6080", "6089"],
}  # fmt: skip


def _config(tmp_path: Path, clone: Path, **sources: str) -> Config:
    return Config(
        enhancements=str(clone),
        cache_dir=str(tmp_path / "cache"),
        wiki={"dir": str(WIKI), "pages": [PAGE]},
        release_notes={"source": sources.get("notes", "")},
        gate_lifecycle={"source": sources.get("gates", "")},
    )


@pytest.fixture(scope="module")
def full(bundle_clone, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("watch")
    return run_watch(_config(tmp, bundle_clone, notes=str(NOTES), gates=str(LIST)))


#: The line a watch without the release team's records adds to what it could not see.
RECORDS_UNSEEN = (
    "the release team's records: none read (--sig-release); no freeze dates, so no planned, at risk, shipped or missed"
)


def test_every_v1_37_row_has_a_state_and_the_slips_are_told(full):
    w = full.watch
    assert (w.cycle.release, w.cycle.release_from, w.cycle.started, w.cycle.started_from) == (
        "v1.37",
        "release notes",
        "2026-04-06",  # #5694 merged 2026-04-07 02:29 +05:30, 2026-04-06 20:59 UTC
        "history",
    )
    assert w.cycle.started_why == (
        "the first kep.yaml to name v1.37 as its latest milestone: "
        "keps/sig-node/2033-kubelet-in-userns-aka-rootless/kep.yaml (#5694)"
    )
    assert {s: [e.kep for e in w.entries if e.state == s] for s in STATES} == STATES
    assert w.unseen == (RECORDS_UNSEEN,)
    planned = [e for e in w.entries if e.state != "slipped"]
    assert len(planned) == 32
    assert {e.kep: e.reason for e in w.entries if e.state in ("slipped", "contradicted")} == {
        "5732": "the v1.37 note #138274 says alpha; kep.yaml plans beta in v1.37",
        "6132": "the v1.37 note #138916 says alpha; kep.yaml plans beta in v1.37",
        "5075": "GA moved v1.37 → v1.38 on 2026-06-09 (#6102)",
        "5598": "GA moved v1.37 → v1.38 on 2026-06-17 (#6039)",
    }


def test_a_kep_with_a_v1_37_note_is_never_no_sign_yet(full):
    with_note = {
        e.kep
        for e in full.watch.entries
        for s in e.signs
        if s.source == "release note" and s.says not in ("", "possible")
    }
    assert len(with_note) == 24  # 19 landed, 2 contradicted, 2 on track (2837, 6089), 4680 (no stage, not set)
    # a note naming no stage is work of the cycle, no sign for a stage kep.yaml never set (4680: beta, v1.36)
    assert with_note & set(STATES["no sign yet"]) == {"4680"}


def test_signs_carry_the_pull_request_and_day_git_log_shows(full):
    by_kep = {e.kep: e for e in full.watch.entries}
    assert [(s.date, s.pr, s.text) for s in by_kep["5554"].signs if s.source == "history"] == [
        # merged 2026-06-16 02:59 +05:30: 2026-06-15 in UTC
        ("2026-06-15", 6170, "alpha v1.36 → v1.37 on 2026-06-15 (#6170), after the cycle began"),
        ("2026-06-15", 6170, "beta moved v1.37 → v1.38 on 2026-06-15 (#6170)"),
    ]
    assert [(s.date, s.pr, s.text) for s in by_kep["4671"].signs if s.source in ("kep.yaml", "history")] == [
        ("2026-05-28", 6076, "implementable, stage beta since 2026-05-28 (#6076), latest-milestone v1.37"),
        ("2026-02-11", 5893, "beta v1.37 set on 2026-02-11 (#5893), before the cycle began"),
        ("2026-05-28", 6076, "stage alpha → beta on 2026-05-28 (#6076)"),
    ]
    assert [(s.pr, s.says, s.stage) for s in by_kep["5526"].signs if s.source == "release note"] == [
        (138738, "on track", ""),
        (140573, "landed", "beta"),
        (141209, "off", ""),  # "Disabled the `PodLevelResourceManagers` feature gate by default ...": the PR's off
    ]
    assert [s.text for s in by_kep["5526"].signs if s.pr == 141209] == ["the v1.37 note #141209 turns its default off"]
    # PodLevelResources, which 5419 and 5526 declare too, is 2837's (declared first): its notes speak for 2837 alone
    assert [(s.pr, s.says, s.stage) for s in by_kep["2837"].signs if s.source == "release note"] == [
        (137150, "on track", ""),
        (140262, "on track", ""),  # a bug fix ("Fixed ... silently dropped ..."): no gate removed
        (140463, "on track", ""),
    ]
    # 5554 took InPlacePodVerticalScalingExclusiveCPUs (alpha in v1.32) planning v1.36: no contradiction
    assert [s.text for s in by_kep["5554"].signs if s.source == "gate list"] == [
        "InPlacePodVerticalScalingExclusiveCPUs reached alpha in v1.32, before this KEP took the gate (planning v1.36)"
    ]
    assert by_kep["4680"].reason == "kep.yaml not set for GA in v1.37; the v1.37 note #139477 names no stage"
    # 6089 has no stage before v1.37 (alpha planned there): what a note linked to it adds is its alpha
    assert by_kep["6089"].reason == "the v1.37 note #140717 adds the first work of a KEP with no stage yet: its alpha"
    assert full.report["watch"]["counts"] == {s: len(v) for s, v in STATES.items()}


def test_the_planned_keps_are_those_whose_kep_yaml_names_v1_37(full, bundle_clone):
    from bot.sources.enhancements import load_snapshot

    snapshot = load_snapshot(str(bundle_clone), Path("/nonexistent-cache"))
    for e in full.watch.entries:
        [kep] = [k for k in snapshot.all_keps() if k.path == e.kep_path]
        named = tuple(s for s in STAGES if normalize_milestone(kep.milestone(s)) == "v1.37")
        assert named == (() if e.state == "slipped" else e.planned), e.kep


def test_without_notes_or_a_list_the_watch_works_from_kep_yaml_and_history(bundle_clone, tmp_path):
    w = run_watch(_config(tmp_path, bundle_clone)).watch
    assert (w.cycle.release, w.cycle.release_from, w.cycle.started) == ("v1.37", "kep.yaml", "2026-04-06")
    assert w.counts() == {"contradicted": 0, "slipped": 2, "no sign yet": 5, "on track": 27, "landed": 0}
    assert [e.kep for e in w.entries if e.state == "no sign yet"] == ["4680", "5007", "5325", "5679", "6080"]
    assert w.unseen == (
        "release notes: none read (--release-notes); no note can say landed or contradicted",
        "feature-gate list: none read (--gate-lifecycle); no gate entry can say landed or contradicted",
        RECORDS_UNSEEN,
    )


def _one_row(tmp_path: Path, clone: Path, row: str):
    wiki = tmp_path / "wiki"
    wiki.mkdir(parents=True)
    (wiki / "p.md").write_text(f"| KEP | Stage | Alpha | Beta | GA |\n|---|---|---|---|---|\n{row}\n")
    config = _config(tmp_path, clone, notes=str(NOTES), gates=str(LIST))
    return run_watch(
        config.model_copy(update={"wiki": config.wiki.model_copy(update={"dir": str(wiki), "pages": ["p.md"]})})
    )


def test_a_note_naming_the_kep_by_its_title_counts_and_one_in_title_words_only_is_possible(
    full, bundle_clone, tmp_path
):
    assert [(e.kep, s.pr) for e in full.watch.entries for s in e.signs if s.says == "possible"] == []
    by_kep = {e.kep: e for e in full.watch.entries}
    # "Added the `.spec.evictionResponders` Pod field, along with the EvictionRequest and Eviction resources."
    assert by_kep["4563"].reason == "the v1.37 note #137050 announces alpha, naming the KEP by its title"
    done = _one_row(tmp_path / "a", bundle_clone, "| 5004 | beta | v1.34 | v1.35 | v1.37 |")
    assert done.text.split("\n")[9:12] == [
        "== landed (1)",
        "5004  DRA Extended Resource  (GA in v1.37)",
        "  the v1.37 note #138488 announces GA, naming the KEP by its title",
    ]
    # 5999 "HTTP/2 cleartext (h2c) container probes": the note says neither h2c nor container
    maybe = _one_row(tmp_path / "b", bundle_clone, "| 5999 | alpha | v1.37 | - | - |")
    assert maybe.text.split("\n")[9:13] == [
        "== on track (1)",
        "5999  HTTP/2 cleartext (h2c) container probes  (alpha in v1.37)",
        "  kep.yaml: implementable, stage alpha since 2026-06-15 (#6000), latest-milestone v1.37",
        "  - release note: possible: the v1.37 note #139429 may announce alpha (title words only, not a confirmation): "
        "Added a `protocol` field to `httpGet` probes so that liveness, readiness, and startup probes can run over HTT…",
    ]
    [sign] = [s for s in maybe.report["watch"]["keps"][0]["signs"] if s["says"] == "possible"]
    assert (sign["pr"], sign["url"]) == (139429, "https://github.com/kubernetes/kubernetes/pull/139429")
