"""Every sign of the watch (bot.plan.watch.judge, bot.plan.evidence.prose): a note naming a KEP by its title, a
note linked to the KEP that introduces its feature, gates a kep.yaml once declared, a page KEP whose kep.yaml was
deleted, and the whole release (--all) with its report fields. Pure: hand-written KEPs, notes and timelines."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.model.history.declared import former_gates
from bot.model.history.log import NO_BLOB, Commit, Version
from bot.plan.evidence import build_index, gate_owners
from bot.plan.evidence.prose import first_stage, named_evidence, names_kep, title_words, titles
from bot.plan.watch.judge import Cycle, watch
from bot.plan.watch.render import pr_sections, render_text, report_block
from bot.plan.watch.scope import places, sig_keps, sig_name
from bot.wiki.matrix import parse_page
from tests.notesutil import entry
from tests.syncutil import kep, snapshot

R = "v1.37"
CYCLE = Cycle(R, "config", "release.current", "2026-04-01", "config", "release.started")


def titled(number: int, title: str, **fields) -> tuple[str, bytes]:
    """A kep.yaml (:func:`tests.syncutil.kep`) with its own ``title``."""
    path, data = kep(number, f"k{number}", **fields)
    return path, data.replace(f"title: KEP {number} k{number}".encode(), f'title: "{title}"'.encode())


SNAP = snapshot(
    titled(1, "EvictionRequest API", stage="alpha", alpha=R, latest=R, gates=("EvictionRequestAPI",)),
    titled(
        2,
        "DRA: device taints and tolerations",
        stage="stable",
        alpha="v1.33",
        beta="v1.36",
        stable=R,
        latest=R,
        gates=("DRADeviceTaints",),
    ),  # fmt: skip
    titled(3, "DRA: Standard numaNode Device Attribute", stage="stable", alpha="", stable=R, latest=R),
    titled(4, "DRA Derived Attributes", stage="alpha", alpha=R, latest=R, gates=("DRADerivedAttributes",)),
    titled(
        5,
        "Scheduler Preemption for In-Place Pod Resize",
        stage="alpha",
        alpha=R,
        latest=R,
        gates=("SchedulerPreemptionForPodResize",),
    ),  # fmt: skip
    titled(6, "Workload Aware Scheduling Controller APIs", stage="alpha", alpha=R, latest=R),
    titled(7, "Workload Aware Scheduling Job APIs", stage="alpha", alpha="v1.36", latest=R),
    titled(8, "Pod taints and tolerations for devices", stage="alpha", alpha="v1.30"),
    titled(9, "Renamed gate", stage="beta", alpha="v1.36", beta=R, latest=R, gates=("NewName",)),
)
KEPS = SNAP.all_keps()
PATHS = {k.number: k.path for k in KEPS}
BY = {k.number: k for k in KEPS}
NOTES = {
    R: {
        "101": entry(101, "Added the `.spec.evictionResponders` Pod field, along with the EvictionRequest resource."),
        "102": entry(102, "Fixed a bug when the `DRADeviceTaints` feature gate is enabled."),
        "103": entry(103, "Promoted the DRA Device Taints and Tolerations feature to GA."),
        "104": entry(104, "Added the standard device attribute `resource.kubernetes.io/numaNode` for DRA drivers."),
        "105": entry(
            105,
            "Added support for derived attributes in DRA.",
            documentation=[
                {"description": "[KEP]", "url": "https://github.com/kubernetes/enhancements/issues/4", "type": "KEP"}
            ],  # fmt: skip
        ),
        "106": entry(
            106,
            "Added scheduler support for preempting Pods for in-place Pod resizes when the `InPlacePodVerticalScalingSchedulerPreemption` Alpha feature gate is enabled.",
        ),  # fmt: skip
        "107": entry(107, "Added Workload-aware scheduling support to the Job controller and the building block APIs."),
        "108": entry(108, "Promoted the `OldName` feature gate to beta."),
    }
}


def test_a_title_names_a_kep_by_its_content_words_and_camelcase_parts():
    assert title_words("EvictionRequest API") == ("evictionrequest", "api")
    assert title_words("DRA: device taints and tolerations") == ("dra", "device", "taint", "toleration")
    assert title_words("Node API") == ()  # one plain word: too plain to name a KEP
    assert title_words("Pod Status") == ()  # only common words
    assert names_kep(title_words("EvictionRequest API"), "Added the EvictionRequest and Eviction resources.")
    assert not names_kep(title_words("EvictionRequest API"), "Added the Eviction resource.")
    words = title_words("Scheduler Preemption for In-Place Pod Resize")
    assert names_kep(
        words, "scheduler ... in-place Pod resizes ... the `InPlacePodVerticalScalingSchedulerPreemption` gate"
    )
    assert not names_kep(words, "scheduler ... in-place Pod resizes, preempting lower-priority Pods")
    assert first_stage(BY[3]) == "stable" and first_stage(BY[1]) == "alpha"


def test_a_note_names_a_kep_only_with_something_only_that_kep_has():
    known = titles(KEPS)
    declared = {g for k in KEPS for g in k.gates()}
    by = {k.number: k for k in KEPS}
    found = {
        n: [
            (e.pr, e.stage, e.possible)
            for s in ("alpha", "beta", "stable")
            for e in named_evidence(NOTES, by[n], s, declared, known)
        ]  # fmt: skip
        for n in by
    }
    assert found == {
        1: [(101, "alpha", False)],  # its own API: the one CamelCase word of its title
        2: [(103, "stable", False)],  # its whole title as a run; 102 names its gate (the index's)
        3: [(104, "stable", False)],  # introduces the attribute: GA is the first stage kep.yaml names
        4: [],  # 105 links KEP 4 by number: the index's, not prose
        5: [(106, "alpha", False)],  # an undeclared gate and every title word
        6: [],  # 107: no word only KEP 6's title has, and it names KEP 7's title too
        7: [],
        8: [],
        9: [],
    }


def test_every_note_is_shown_and_a_named_one_lands_the_kep():
    from bot.commands.watch_inputs import possible_notes

    possible = possible_notes(NOTES, KEPS, KEPS, R)
    w = watch(KEPS, CYCLE, ids={}, index=build_index(NOTES, KEPS), possible=possible)
    by_kep = {e.kep: e for e in w.entries}
    assert {k: e.state for k, e in by_kep.items()} == {
        "1": "landed",
        "2": "landed",
        "3": "landed",
        "4": "landed",
        "5": "landed",
        "6": "on track",
        "9": "on track",
    }
    assert [(s.pr, s.says) for s in by_kep["2"].signs if s.source == "release note"] == [(102, "on track"), (103, "landed")]  # fmt: skip
    assert by_kep["4"].reason == "the v1.37 note #105 announces alpha"  # linked, introduces its feature by title
    assert by_kep["5"].reason == (
        "the v1.37 note #106 announces alpha, naming the KEP by its title and the gate "
        "InPlacePodVerticalScalingSchedulerPreemption, which kep.yaml does not declare (SchedulerPreemptionForPodResize)"
    )


def version(path: str, n: int, date: str, pr: int, blob: str = "") -> Version:
    return Version(Commit(f"{n:040x}", "p", f"{date}T10:00:00+00:00", f"s {n}", pr, ()), path, blob or f"{n:040d}")


def fields(gates: str = "", **miles: str) -> dict[str, str]:
    out = {"status": "implementable", "stage": "alpha", "latest-milestone": R, "feature-gates": gates, "title": "Gone"}
    return out | {f"milestone.{s}": miles.get(s, "") for s in ("alpha", "beta", "stable", "deprecated", "removed")}


def test_a_note_naming_a_gate_the_kep_yaml_once_declared_is_read_and_says_so():
    path = PATHS[9]
    timeline = [
        (version(path, 1, "2026-01-02", 11), fields("OldName", alpha="v1.36", beta=R)),
        (version(path, 2, "2026-05-02", 12), fields("NewName", alpha="v1.36", beta=R)),
    ]
    former = {path: former_gates(timeline, BY[9].gates())}
    assert former == {path: ("OldName",)}
    owners = gate_owners(KEPS) | {"OldName": (path,)}
    w = watch([BY[9]], CYCLE, ids={}, index=build_index(NOTES, KEPS, owners), former=former)
    [e] = w.entries
    assert (e.state, e.reason) == (
        "landed",
        "the v1.37 note #108 announces beta (names OldName, a gate kep.yaml no longer declares; it declares NewName)",
    )


def test_a_page_kep_deleted_in_the_cycle_slips_with_the_commit_and_one_added_again_does_not():
    path = "keps/sig-node/100-gone/kep.yaml"
    gone = [
        (version(path, 1, "2026-01-10", 10), fields(alpha="v1.36", beta=R)),
        (version(path, 2, "2026-05-01", 12, NO_BLOB), None),
    ]
    w = watch([], CYCLE, ids={}, deleted={path: gone})
    [e] = w.entries
    assert (e.kep, e.title, e.planned, e.state, e.reason) == ("100", "Gone", ("beta",), "slipped", "kep.yaml deleted on 2026-05-01 (#12)")  # fmt: skip
    assert [(s.source, s.says, s.date, s.pr) for s in e.signs] == [("history", "slip", "2026-05-01", 12)]
    before = watch([], CYCLE._replace(started="2026-06-01"), ids={}, deleted={path: gone})
    assert before.entries == ()  # deleted before the cycle began: no stage planned in it since
    back = [*gone, (version(path, 3, "2026-05-02", 13), fields(alpha="v1.36", beta=R))]
    assert watch([], CYCLE, ids={}, deleted={path: back}).entries == ()  # the file is there again: no deletion


def test_places_tell_the_rows_of_each_kep_and_the_numbers_with_no_kep_yaml():
    text = "| KEP | Status |\n|---|---|\n| 1 | alpha |\n| 77 | beta |\n| 2 | GA |\n"
    aliases = {"kep": ("KEP",), "status": ("Status",)}
    where = places(SNAP, [parse_page("m.md", text, aliases)])
    assert where.rows == {PATHS[1]: (("m.md", 3),), PATHS[2]: (("m.md", 5),)}
    assert where.gone == (77,)
    assert places(SNAP, [parse_page("m.md", text, aliases)], only={1}).gone == ()
    assert (sig_name("node"), sig_name("sig-node"), sig_name("SIG-Node")) == ("sig-node", "sig-node", "sig-node")
    assert sig_keps(SNAP, "scheduling") == KEPS and sig_keps(SNAP, "node") == []


def test_the_whole_release_lists_no_new_stage_and_withdrawn_keps_and_reports_their_fields():
    snap = snapshot(
        kep(11, "planned", stage="beta", alpha="v1.36", beta=R, latest=R, gates=("PlannedGate",)),
        kep(12, "work", sig="sig-node", stage="alpha", alpha="v1.36", latest=R),
        kep(13, "dead", status="withdrawn", alpha=R, latest=R),
        kep(14, "elsewhere", alpha="v1.30"),
    )
    keps = snap.all_keps()
    rows = {keps[0].path: (("m.md", 4),)}
    w = watch(keps, CYCLE, ids={}, rows=rows, whole=True)
    assert [(e.kep, e.state, e.reason) for e in w.entries] == [
        ("13", "slipped", "status withdrawn; kep.yaml still names v1.37"),
        ("11", "on track", "kep.yaml: implementable, stage beta, latest-milestone v1.37"),
    ]
    assert [(e.kep, e.state, e.reason) for e in w.targeting] == [
        ("12", "no new stage", "latest-milestone v1.37, stage alpha (alpha v1.36): no stage planned in v1.37")
    ]
    assert watch(keps, CYCLE, ids={}).targeting == ()  # the page watch: as before
    text = render_text(w, ["Scope: every kep.yaml naming v1.37"], by_sig=True).splitlines()
    assert text[4:] == [
        "Also naming v1.37 as latest-milestone with no new stage: 1 KEP",
        "",
        "== sig-node (no stage planned; 1 with no new stage)",
        "12  KEP 12 work  (no new stage in v1.37)  no new stage",
        "  latest-milestone v1.37, stage alpha (alpha v1.36): no stage planned in v1.37",
        "",
        "== sig-scheduling (2 KEPs: 1 slipped, 1 on track)",
        "13  KEP 13 dead  (alpha was planned in v1.37)  slipped",
        "  status withdrawn; kep.yaml still names v1.37",
        "  - kep.yaml: status withdrawn; kep.yaml still names v1.37",
        "11  KEP 11 planned  (beta in v1.37)  on track  [page: m.md:4]",
        "  kep.yaml: implementable, stage beta, latest-milestone v1.37",
        "  - kep.yaml: implementable, stage beta, latest-milestone v1.37",
    ]
    block = report_block(w)
    assert block is not None
    [planned] = [k for k in block["keps"] if k["kep"] == "11"]  # type: ignore[union-attr]
    assert {k: planned[k] for k in ("sig", "status", "stage", "gates", "rows", "slipped_to")} == {
        "sig": "sig-scheduling",
        "status": "implementable",
        "stage": "beta",
        "gates": ["PlannedGate"],
        "rows": [{"page": "m.md", "line": 4}],
        "slipped_to": "",
    }
    assert [k["kep"] for k in block["targeting"]] == ["12"]  # type: ignore[union-attr]


WORDS = ("taints", "tolerations", "derived", "attributes", "numaNode", "EvictionRequest", "preemption", "resize")


@given(st.lists(st.sampled_from(WORDS), min_size=2, max_size=4, unique=True), st.text("abc ,.", max_size=20))
def test_a_sentence_names_a_title_exactly_when_it_holds_each_content_word(title, filler):
    words = title_words(" and ".join(title))
    assert words
    assert names_kep(words, f"{filler} Promoted the {' '.join(title)} feature. {filler}")
    for dropped in title:
        rest = " ".join(w for w in title if w != dropped)
        assert not names_kep(words, f"{filler} Promoted the {rest} feature {filler}")


def test_the_sync_reads_a_note_naming_the_kep_by_its_title_as_the_watch_does():
    from bot.commands.watch_inputs import possible_notes
    from bot.plan.diff import Change
    from bot.plan.evidence.review import review

    changes = [
        Change(str(n), "p.md", n, field, old, new, "promoted", True, PATHS[n])
        for n, field, old, new in ((1, "alpha", "v1.36", R), (2, "stage", "beta", "stable"), (6, "stage", "", "alpha"))
    ]
    got = review(changes, KEPS, KEPS, NOTES, [R]).changes
    sync = {c.kep_id: [(e.release, e.pr, e.stage, e.possible) for e in c.evidence] for c in got}
    watched = {
        p: [(e.release, e.pr, e.stage, e.possible) for e in v] for p, v in possible_notes(NOTES, KEPS, KEPS, R).items()
    }
    assert sync == {"1": [(R, 101, "alpha", False)], "2": [(R, 103, "stable", False)], "6": []}
    assert watched[PATHS[1]] == sync["1"] and watched[PATHS[2]] == sync["2"]


def test_a_default_turned_off_is_one_sign_off_in_text_json_and_pull_request():
    notes = {
        R: {
            "201": entry(201, "Promoted the `NewName` feature gate to beta, enabled by default."),
            "202": entry(202, "Disabled the `NewName` feature gate by default because of critical issues found."),
        }
    }
    w = watch(KEPS, CYCLE, ids={}, index=build_index(notes, KEPS))
    nine = next(e for e in w.entries if e.kep == "9")
    assert [(s.pr, s.says, s.text) for s in nine.signs if s.source == "release note"] == [
        (201, "landed", "the v1.37 note #201 announces beta"),
        (202, "off", "the v1.37 note #202 turns its default off"),
    ]
    assert "  - release note: the v1.37 note #202 turns its default off: Disabled the" in render_text(w)
    signs = next(k for k in report_block(w)["keps"] if k["kep"] == "9")["signs"]
    assert [(s["pr"], s["says"]) for s in signs if s["source"] == "release note"] == [(201, "landed"), (202, "off")]
    rows = [r for section in pr_sections(w) for r in section[1] if r.startswith("| [9](")]
    assert "note [#202](https://github.com/kubernetes/kubernetes/pull/202) off" in rows[0]
