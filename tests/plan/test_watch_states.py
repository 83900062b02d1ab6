"""The watch of the release in progress (bot.plan.watch.judge, bot.plan.watch.render): states, signs, the cycle and the
three renderings. Pure: small hand-written KEPs, notes, a gate list and kep.yaml timelines."""

from __future__ import annotations

from bot.model.gates import lifecycle, parse_gate_list
from bot.model.history.log import NO_BLOB, Commit, Version
from bot.plan.evidence import build_index
from bot.plan.evidence import gates as G
from bot.plan.watch.judge import Cycle, Sign, cycle_start, list_release, release_in_progress, watch
from bot.plan.watch.render import headline, pr_sections, render_text, report_block
from bot.plan.watch.scope import page_keps, places
from bot.wiki.matrix import parse_page
from tests.notesutil import entry
from tests.syncutil import kep, snapshot

R = "v1.37"
CYCLE = Cycle(R, "release notes", "the newest release with notes is v1.37", "2026-04-01", "config", "release.started")
SNAP = snapshot(
    kep(101, "landed", stage="beta", beta=R, latest=R, gates=("LandedGate",)),
    kep(102, "contra", stage="beta", beta=R, latest=R, gates=("ContraGate",)),
    kep(103, "on-track", stage="alpha", alpha=R, latest=R, gates=("TrackGate",)),
    kep(104, "quiet", stage="beta", beta="v1.36", stable=R, gates=("QuietGate",)),
    kep(105, "slipped", stage="beta", beta="v1.36", stable="v1.38", latest=R),
    kep(106, "list-landed", stage="alpha", alpha="v1.36", beta=R, gates=("ListGate",)),
    kep(107, "list-early", stage="beta", beta=R, latest=R, gates=("EarlyGate",)),
    kep(108, "work", stage="alpha", alpha=R, gates=("WorkGate",)),
    kep(109, "elsewhere", alpha="v1.30"),
    kep(110, "dropped", status="withdrawn", alpha=R, latest=R),
)
KEPS = SNAP.all_keps()
PATHS = {k.number: k.path for k in KEPS}
NOTES = {
    R: {
        "901": entry(901, "Promoted the `LandedGate` feature gate to beta."),
        "902": entry(902, "Added the `ContraGate` feature gate (Alpha, disabled by default)."),
        "903": entry(903, "Fixed a bug when the `WorkGate` feature gate is enabled."),
    },
    "v1.36": {"801": entry(801, "Added the `QuietGate` feature gate.")},
}
LIST = b"""- name: QuietGate
  versionedSpecs:
  - {version: "1.35", preRelease: Alpha, default: false, lockToDefault: false}
  - {version: "1.36", preRelease: Beta, default: true, lockToDefault: false}
- name: ListGate
  versionedSpecs:
  - {version: "1.36", preRelease: Alpha, default: false, lockToDefault: false}
  - {version: "1.37", preRelease: Beta, default: true, lockToDefault: false}
- name: EarlyGate
  versionedSpecs:
  - {version: "1.35", preRelease: Beta, default: true, lockToDefault: false}
"""
LC = lifecycle("list.yaml", [parse_gate_list("list.yaml", LIST)[0]])


def fields(status="implementable", stage="alpha", latest="v1.36", alpha="", beta="", stable="") -> dict[str, str]:
    """Tracked fields of one kep.yaml version (bot.model.history.fields.TRACKED)."""
    return {
        "status": status,
        "stage": stage,
        "latest-milestone": latest,
        "milestone.alpha": alpha,
        "milestone.beta": beta,
        "milestone.stable": stable,
        "milestone.deprecated": "",
        "milestone.removed": "",
        "feature-gates": "",
    }


def version(path: str, n: int, date: str, pr: int, blob: str = "") -> Version:
    return Version(
        Commit(f"{n:040x}", "p", f"{date}T10:00:00+00:00", f"subject {n}", pr, ()), path, blob or f"{n:040d}"
    )


TIMELINES = {
    PATHS[105]: [
        (version(PATHS[105], 1, "2026-01-10", 500), fields(stage="beta", beta="v1.36", stable=R, latest="v1.36")),
        (version(PATHS[105], 2, "2026-05-10", 777), fields(stage="beta", beta="v1.36", stable="v1.38", latest=R)),
    ],
    PATHS[101]: [
        (version(PATHS[101], 3, "2026-02-02", 600), fields(stage="alpha", alpha="v1.36", beta=R)),
        (version(PATHS[101], 4, "2026-05-20", 0), fields(stage="beta", alpha="v1.36", beta=R, latest=R)),
    ],
    PATHS[103]: [(version(PATHS[103], 5, "2026-04-15", 650), fields(alpha=R, latest=R))],
    PATHS[110]: [
        (version(PATHS[110], 6, "2026-03-01", 700), fields(alpha=R, latest=R)),
        (version(PATHS[110], 7, "2026-06-01", 701), fields(status="withdrawn", alpha=R, latest=R)),
    ],
}


def full_watch(**over):
    args = {
        "ids": {k.path: str(k.number) for k in KEPS},
        "index": build_index(NOTES, KEPS),
        "lifecycle": LC,
        "joins": G.joins(KEPS, KEPS, LC),
        "timelines": TIMELINES,
    }
    return watch(KEPS, over.pop("cycle", CYCLE), **{**args, **over})


def test_every_state_from_its_signs():
    w = full_watch()
    assert [(e.kep, e.state, e.planned) for e in w.entries] == [
        ("102", "contradicted", ("beta",)),
        ("107", "contradicted", ("beta",)),
        ("105", "slipped", ("stable",)),
        ("110", "slipped", ("alpha",)),
        ("104", "no sign yet", ("stable",)),
        ("108", "no sign yet", ("alpha",)),  # a note of the cycle, but kep.yaml never set alpha for v1.37
        ("103", "on track", ("alpha",)),
        ("101", "landed", ("beta",)),
        ("106", "landed", ("beta",)),
    ]
    assert {e.kep: e.reason for e in w.entries} == {
        "102": "the v1.37 note #902 says alpha; kep.yaml plans beta in v1.37",
        "107": "gate list: EarlyGate reached beta in v1.35, before v1.37; kep.yaml plans beta in v1.37",
        "105": "GA moved v1.37 → v1.38 on 2026-05-10 (#777)",
        "110": "status implementable → withdrawn on 2026-06-01 (#701)",
        "104": "no note, gate entry or kep.yaml update for GA in v1.37 yet",
        "103": "kep.yaml: implementable, stage alpha since 2026-04-15 (#650), latest-milestone v1.37",
        "108": "kep.yaml not set for alpha in v1.37; the v1.37 note #903 names no stage",
        "101": "the v1.37 note #901 announces beta",
        "106": "gate list: ListGate reaches beta in v1.37",
    }
    assert w.counts() == {"contradicted": 2, "slipped": 2, "no sign yet": 2, "on track": 1, "landed": 2}


def test_the_signs_of_a_landed_kep_name_source_date_and_pull_request():
    landed = next(e for e in full_watch().entries if e.kep == "101")
    url = "https://github.com/kubernetes/kubernetes/pull/901"
    assert landed.signs == (
        Sign("release note", "landed", "beta", "", 901, url, "the v1.37 note #901 announces beta", "Promoted the `LandedGate` feature gate to beta."),
        Sign("gate list", "", "", "", 0, "", "LandedGate: not in the list yet"),
        Sign("kep.yaml", "on track", "beta", "2026-05-20", 0, "", "implementable, stage beta since 2026-05-20, latest-milestone v1.37"),
        Sign("history", "", "beta", "2026-02-02", 600, "", "beta v1.37 set on 2026-02-02 (#600), before the cycle began"),
        Sign("history", "", "beta", "2026-05-20", 0, "", "stage alpha → beta on 2026-05-20"),
    )  # fmt: skip


def test_a_plan_made_during_the_cycle_and_a_quiet_gate_are_told():
    w = full_watch()
    track = next(e for e in w.entries if e.kep == "103")
    assert [s.text for s in track.signs] == [
        "TrackGate: not in the list yet",
        "implementable, stage alpha since 2026-04-15 (#650), latest-milestone v1.37",
        "new kep.yaml plans alpha in v1.37 on 2026-04-15 (#650), after the cycle began",
    ]
    quiet = next(e for e in w.entries if e.kep == "104")
    assert [s.text for s in quiet.signs] == [
        "QuietGate: alpha v1.35, beta v1.36 (on); nothing for v1.37 yet",
        "implementable, stage beta, latest-milestone v1.36 (not set for GA in v1.37)",
    ]


def test_a_gate_at_another_stage_in_the_release_contradicts_and_a_shipped_release_is_judged():
    lc = lifecycle("l.yaml", [parse_gate_list("l.yaml", LIST.replace(b"Beta, default: true, lockToDefault: false}\n- name: EarlyGate", b"Alpha, default: true, lockToDefault: false}\n- name: EarlyGate"))[0]])  # fmt: skip
    listed = next(e for e in full_watch(lifecycle=lc, joins=G.joins(KEPS, KEPS, lc)).entries if e.kep == "106")
    assert (listed.state, listed.reason) == (
        "contradicted",
        "gate list: ListGate is alpha in v1.37; kep.yaml plans beta in v1.37",
    )
    in_136 = {e.kep: e for e in full_watch(cycle=CYCLE._replace(release="v1.36")).entries}
    assert (in_136["104"].state, in_136["104"].planned, in_136["104"].reason) == (
        "contradicted",
        ("beta",),
        "the v1.36 note #801 says alpha; kep.yaml plans beta in v1.36",  # a note speaks before the list
    )
    quiet = next(e for e in full_watch(cycle=CYCLE._replace(release="v1.36"), index=None).entries if e.kep == "104")
    assert (quiet.state, quiet.reason) == ("landed", "gate list: QuietGate reaches beta in v1.36")
    late = snapshot(kep(301, "late", stage="stable", stable="v1.36", gates=("EarlyGate",))).all_keps()
    [shipped] = watch(
        late, CYCLE._replace(release="v1.36"), ids={}, lifecycle=LC, joins=G.joins(late, late, LC)
    ).entries
    assert (shipped.state, shipped.reason) == (
        "contradicted",
        "gate list: EarlyGate is beta in v1.36, which the list says shipped; kep.yaml plans GA in v1.36",
    )


def test_without_notes_list_or_history_the_watch_works_from_kep_yaml_alone():
    w = watch(KEPS, CYCLE, ids={}, unseen=("release notes: none read",))
    assert [(e.kep, e.state) for e in w.entries] == [
        ("104", "no sign yet"),
        ("106", "no sign yet"),
        ("108", "no sign yet"),
        ("101", "on track"),
        ("102", "on track"),
        ("103", "on track"),
        ("107", "on track"),
    ]
    assert w.unseen == ("release notes: none read",)
    assert [s.source for s in w.entries[0].signs] == ["kep.yaml"]


def test_without_a_start_day_nothing_slips_and_plans_carry_their_day():
    w = full_watch(cycle=CYCLE._replace(started="", started_from="", started_why=""))
    assert "105" not in [e.kep for e in w.entries] and "110" not in [e.kep for e in w.entries]
    landed = next(e for e in w.entries if e.kep == "101")
    assert [s.text for s in landed.signs if s.source == "history"] == ["beta v1.37 set on 2026-02-02 (#600)"]


def test_a_stage_moved_to_an_earlier_release_is_no_slip_and_a_deleted_file_starts_again():
    path = PATHS[105]
    timeline = [
        (version(path, 1, "2026-04-02", 1), fields(stage="beta", beta=R, latest=R)),
        (version(path, 2, "2026-04-03", 2, NO_BLOB), None),
        (version(path, 3, "2026-04-04", 3), fields(stage="beta", beta="v1.36", latest=R)),
    ]
    w = full_watch(timelines={path: timeline})
    assert "105" not in [e.kep for e in w.entries]
    again = [(version(path, 1, "2026-04-02", 1), fields(stage="beta", beta=R)), timeline[-1]]
    gone = full_watch(timelines={path: again})
    assert "105" not in [e.kep for e in gone.entries]  # v1.37 -> v1.36: moved earlier, not a slip


def test_a_note_of_another_stage_contradicts_only_when_none_announces_the_planned_one():
    notes = {R: {**NOTES[R], "904": entry(904, "Promoted the `ContraGate` feature gate to beta.")}}
    contra = next(e for e in full_watch(index=build_index(notes, KEPS)).entries if e.kep == "102")
    assert (contra.state, contra.reason) == ("landed", "the v1.37 note #904 announces beta")
    assert [(s.pr, s.says) for s in contra.signs if s.source == "release note"] == [
        (902, "contradicts"),
        (904, "landed"),
    ]


def test_a_shared_gate_note_is_shown_not_counted():
    keps = snapshot(
        kep(201, "a", stage="beta", beta=R, latest="v1.36", gates=("Shared",)),
        kep(202, "b", stage="beta", beta=R, latest="v1.36", gates=("Shared",)),
    ).all_keps()
    notes = {R: {"950": entry(950, "Promoted the `Shared` feature gate to beta.")}}
    w = watch(keps, CYCLE, ids={}, index=build_index(notes, keps))
    assert [(e.kep, e.state) for e in w.entries] == [("201", "no sign yet"), ("202", "no sign yet")]
    assert w.entries[0].signs[0].text == "the v1.37 note #950 names a gate other KEPs declare too (Shared); not counted"


def test_release_in_progress_and_where_it_came_from():
    assert release_in_progress("v1.36", ("v1.37",), LC, (1, 37)) == Cycle("v1.36", "config", "release.current")
    assert release_in_progress("", ("v1.35", "v1.36"), LC, (1, 37)) == Cycle(
        "v1.37", "gate list", "the newest release with notes is v1.36; the newest gate list is making v1.37"
    )
    assert release_in_progress("", ("v1.37",), None, None) == Cycle(
        "v1.37", "release notes", "the newest release with notes is v1.37"
    )
    assert release_in_progress("", (), None, (1, 37)) == Cycle(
        "v1.37", "kep.yaml", "the newest latest-milestone many kep.yaml files name is v1.37"
    )
    assert release_in_progress("", (), None, None).release == ""


def test_the_release_a_list_is_making():
    shipped = lifecycle("d", [parse_gate_list("d/1.36.yaml", LIST.replace(b'"1.37"', b'"1.36"'), "v1.36")[0]])
    assert (list_release(LC), list_release(shipped), list_release(lifecycle("e", []))) == ("v1.37", "v1.37", "")


def test_the_cycle_starts_at_the_first_kep_yaml_naming_the_release_as_latest_milestone():
    a, b = "keps/sig-x/1-a/kep.yaml", "keps/sig-x/2-b/kep.yaml"
    first = Version(Commit("c" * 40, "p", "2026-04-07T02:29:31+05:30", "s", 5694, ()), b, "b" * 40)
    timelines = [
        [(version(a, 1, "2026-04-06", 1), fields(latest="v1.36")), (version(a, 2, "2026-04-30", 2), fields(latest=R))],
        [(version(b, 3, "2026-01-01", 3), fields(latest="v1.36")), (first, fields(latest=R))],
    ]
    assert cycle_start(R, timelines) == (  # 2026-04-07 02:29 +05:30 is 2026-04-06 20:59 UTC: the UTC day
        "2026-04-06",
        "the first kep.yaml to name v1.37 as its latest milestone: keps/sig-x/2-b/kep.yaml (#5694)",
    )
    assert cycle_start("v1.40", timelines) == ("", "no kep.yaml in the history names v1.40 as its latest milestone")


def test_page_keps_reads_rows_once_with_matching_slugs():
    page = (
        "| KEP | Status |\n|---|---|\n| 101-landed | implementable / beta |\n| 101 | implementable / beta |\n"
        "| 102-wrong-slug | implementable / beta |\n| 103 | implementable / alpha |\n"
    )
    aliases = {"kep": ("KEP",), "status": ("Status",)}
    parsed = [parse_page("m.md", page, aliases)]
    assert [k.number for k in page_keps(SNAP, places(SNAP, parsed))] == [101, 103]
    assert [k.number for k in page_keps(SNAP, places(SNAP, parsed, {103}))] == [103]


def test_the_three_renderings():
    w = watch(
        [k for k in KEPS if k.number in (102, 105)],
        CYCLE,
        ids={},
        index=build_index(NOTES, KEPS),
        timelines=TIMELINES,
        unseen=("feature-gate list: none read",),
    )
    assert headline(w) == "Watch of v1.37: 2 KEPs (1 contradicted, 1 slipped)"
    assert render_text(w, ["Pages: m.md"]) == (
        "Watch of v1.37: 2 KEPs (1 contradicted, 1 slipped)\n"
        "Release in progress: v1.37, from release notes (the newest release with notes is v1.37)\n"
        "Cycle began: 2026-04-01, from config (release.started)\n"
        "Could not see: feature-gate list: none read\n"
        "Pages: m.md\n"
        "\n"
        "== contradicted (1)\n"
        "102  KEP 102 contra  (beta in v1.37)\n"
        "  the v1.37 note #902 says alpha; kep.yaml plans beta in v1.37\n"
        "  - release note: the v1.37 note #902 says alpha: Added the `ContraGate` feature gate (Alpha, disabled by default).\n"
        "  - kep.yaml: implementable, stage beta, latest-milestone v1.37\n"
        "\n"
        "== slipped (1)\n"
        "105  KEP 105 slipped  (GA was planned in v1.37)\n"
        "  GA moved v1.37 → v1.38 on 2026-05-10 (#777)\n"
        "  - history: GA moved v1.37 → v1.38 on 2026-05-10 (#777)\n"
    )
    [(header, rows, noun)] = pr_sections(w, "https://github.com/kubernetes/enhancements")
    assert header == [
        "<details><summary>Watch of v1.37: 2 KEPs (1 contradicted, 1 slipped)</summary>",
        "",
        "- Release in progress: v1.37, from release notes (the newest release with notes is v1.37)",
        "- Cycle began: 2026-04-01, from config (release.started)",
        "- Could not see: feature-gate list: none read",
        "",
        "| KEP | State | Planned | Why | Signs |",
        "|---|---|---|---|---|",
    ]
    assert rows == [
        "| [102](https://kep.k8s.io/102) KEP 102 contra | contradicted | beta in v1.37 | the v1.37 note #902 says alpha; "
        "kep.yaml plans beta in v1.37 | note [#902](https://github.com/kubernetes/kubernetes/pull/902) alpha<br>"
        "kep.yaml set |",
        "| [105](https://kep.k8s.io/105) KEP 105 slipped | slipped | GA was planned in v1.37 | GA moved v1.37 → v1.38 "
        "on 2026-05-10 (#777) | [#777](https://github.com/kubernetes/enhancements/pull/777) GA moved v1.37 → v1.38 "
        "2026-05-10 |",
    ]
    assert noun == "watched KEPs"
    assert pr_sections(None) == [] and pr_sections(watch([], Cycle("", "", ""), ids={})) == []
    block = report_block(w)
    assert block is not None
    assert block["release"] == {
        "current": "v1.37",
        "current_from": "release notes",
        "current_why": "the newest release with notes is v1.37",
        "started": "2026-04-01",
        "started_from": "config",
        "started_why": "release.started",
    }
    assert block["counts"] == {"contradicted": 1, "slipped": 1, "no sign yet": 0, "on track": 0, "landed": 0}
    assert block["keps"][1] == {
        "kep": "105",
        "kep_path": PATHS[105],
        "title": "KEP 105 slipped",
        "sig": "sig-scheduling",
        "status": "implementable",
        "stage": "beta",
        "gates": [],
        "rows": [],
        "planned": ["stable"],
        "state": "slipped",
        "reason": "GA moved v1.37 → v1.38 on 2026-05-10 (#777)",
        "slipped_to": "v1.38",
        "signs": [
            {
                "source": "history",
                "says": "slip",
                "stage": "stable",
                "date": "2026-05-10",
                "pr": 777,
                "url": "https://github.com/kubernetes/enhancements/pull/777",
                "text": "GA moved v1.37 → v1.38 on 2026-05-10 (#777)",
                "quote": "",
            }
        ],
    }
    assert block["targeting"] == []
    assert report_block(None) is None
    assert headline(watch([], Cycle("", "", ""), ids={})) == "Watch: the release in progress is unknown"


def test_a_possible_note_is_shown_with_its_pull_request_and_never_changes_the_state():
    from bot.plan.evidence.index import Evidence

    maybe = Evidence(R, 950, "https://github.com/kubernetes/kubernetes/pull/950", "Promoted the quiet thing to GA.", "stable", False, False, True)  # fmt: skip
    sure = Evidence(R, 951, "", "x", "beta", False, False, True)
    w = full_watch(possible={PATHS[104]: (maybe,), PATHS[101]: (sure,)})
    assert {e.kep: e.state for e in w.entries} == {e.kep: e.state for e in full_watch().entries}
    by_kep = {e.kep: e for e in w.entries}
    assert by_kep["104"].signs[0] == Sign(
        "release note",
        "possible",
        "stable",
        "",
        950,
        "https://github.com/kubernetes/kubernetes/pull/950",
        "possible: the v1.37 note #950 may announce GA (title words only, not a confirmation)",
        "Promoted the quiet thing to GA.",
    )
    assert [(s.pr, s.says) for s in by_kep["101"].signs if s.source == "release note"] == [(901, "landed"), (951, "possible")]  # fmt: skip
    [(_, rows, _)] = pr_sections(w._replace(entries=(by_kep["104"],)))
    assert rows == [
        "| [104](https://kep.k8s.io/104) KEP 104 quiet | no sign yet | GA in v1.37 | no note, gate entry or kep.yaml "
        "update for GA in v1.37 yet | possible: note [#950](https://github.com/kubernetes/kubernetes/pull/950) GA |"
    ]


def test_a_note_turning_the_gate_off_reads_off_in_the_pull_request_never_no_stage():
    by_kep = {e.kep: e for e in full_watch().entries}
    url = "https://github.com/kubernetes/kubernetes/pull/904"
    off = Sign(
        "release note",
        "on track",
        "",
        "",
        904,
        url,
        "the v1.37 note #904 names no stage",
        "Disabled the `TrackGate` feature gate by default because of critical issues found before release.",
    )
    fixed = off._replace(pr=903, url=url.replace("904", "903"), quote="Fixed a bug when `TrackGate` is enabled.")
    [(_, rows, _)] = pr_sections(full_watch()._replace(entries=(by_kep["103"]._replace(signs=(off, fixed)),)))
    assert (
        rows[0].rsplit(" | ", 1)[1] == f"note [#904]({url}) off<br>note [#903]({url.replace('904', '903')}) no stage |"
    )
