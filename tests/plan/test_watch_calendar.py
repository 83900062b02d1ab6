"""bot.plan.watch.calendar: the watch's states follow the release calendar: planned before the Enhancements
Freeze, at risk from Code Freeze on, shipped or missed after the release day; each reason names its source."""

from __future__ import annotations

import pytest

from bot.model.release_calendar import Calendar, FreezeException, KeyDate
from bot.plan.watch.calendar import follow_calendar, known_on, phase, records_lines
from bot.plan.watch.judge import Cycle, Sign, Watch, WatchEntry
from bot.plan.watch.render import render_text, report_block

WHERE = "release-1.37/README.md"
CAL = Calendar(
    "v1.37",
    WHERE,
    {
        k: KeyDate(k, d, n, d)
        for n, (k, d) in enumerate(
            [
                ("started", "2026-05-18"),
                ("enhancements_freeze", "2026-06-16"),
                ("code_freeze", "2026-07-22"),
                ("release_day", "2026-08-26"),
            ],
            32,
        )
    },
)
NOTE_OFF = Sign(
    "release note", "on track", "", "", 141209, "u", "the v1.37 note #141209 names no stage",
    "Disabled the `PodLevelResourceManagers` feature gate by default because of critical issues found before release.",
)  # fmt: skip
LANDING = Sign("release note", "landed", "beta", "", 140573, "u", "the v1.37 note #140573 announces beta", "Promoted")
CF_EXCEPTION = FreezeException(
    100, "codeFreeze", "v1.37", "x", "2026-07-20", "2026-07-21", "approved", "t", "release-1.37/exceptions.yaml", 4
)


def entries() -> tuple[WatchEntry, ...]:
    return (
        WatchEntry("9", "k/9", "nine", ("stable",), "contradicted", "the note says beta", ()),
        WatchEntry("100", "k/100", "hundred", ("beta",), "on track", "kep.yaml: set", ()),
        WatchEntry("200", "k/200", "two", ("alpha",), "no sign yet", "no note yet", ()),
        WatchEntry("5526", "k/5526", "managers", ("beta",), "landed", "the v1.37 note #140573 announces beta",
                   (LANDING, NOTE_OFF)),
    )  # fmt: skip


def judged(as_of: str, calendar: Calendar | None = CAL) -> Watch:
    cycle = Cycle("v1.37", "config", "release.current", "2026-05-18", WHERE, "line 32", calendar, as_of)
    return follow_calendar(Watch(cycle, entries(), ()), [CF_EXCEPTION])


@pytest.mark.parametrize(
    ("as_of", "expected"),
    [
        ("2026-06-15", "before enhancements freeze"),
        ("2026-06-16", "before code freeze"),
        ("2026-07-21", "before code freeze"),
        ("2026-07-22", "code freeze"),  # the AoE deadline is the day itself
        ("2026-08-26", "code freeze"),
        ("2026-08-27", "released"),
        ("", ""),
    ],
)
def test_the_phase_of_a_day(as_of, expected):
    assert phase(CAL, as_of) == expected


def test_before_the_enhancements_freeze_a_stage_is_planned():
    w = judged("2026-06-01")
    assert [(e.kep, e.state) for e in w.entries] == [
        ("9", "contradicted"),
        ("100", "planned"),
        ("200", "planned"),
        ("5526", "landed"),
    ]
    assert w.entries[1].reason == "before the Enhancements Freeze 2026-06-16 (release-1.37/README.md); kep.yaml: set"


def test_from_code_freeze_a_stage_without_a_landed_sign_is_at_risk_naming_its_exception():
    w = judged("2026-07-22")
    assert {e.kep: (e.state, e.reason) for e in w.entries} == {
        "9": ("contradicted", "the note says beta"),
        "100": (
            "at risk",
            "Code Freeze 2026-07-22 (release-1.37/README.md) reached and no note or gate entry says beta yet; "
            "v1.37 Code Freeze exception approved 2026-07-21 (release-1.37/exceptions.yaml)",
        ),
        "200": (
            "at risk",
            "Code Freeze 2026-07-22 (release-1.37/README.md) reached and no note or gate entry says alpha yet; "
            "no Code Freeze exception",
        ),
        "5526": ("landed", "the v1.37 note #140573 announces beta; but the v1.37 note #141209 turns its default off"),
    }
    assert [s.source for s in w.entries[1].signs] == ["release team"]
    assert w.counts() == {
        "contradicted": 1, "slipped": 0, "missed": 0, "at risk": 2, "no sign yet": 0, "planned": 0,
        "on track": 0, "landed": 1, "shipped": 0,
    }  # fmt: skip


def test_an_exception_reviewed_after_the_day_the_watch_stands_on_is_still_a_request():
    late = CF_EXCEPTION._replace(kep=200, requested="2026-07-23", reviewed="2026-07-24")
    assert known_on([CF_EXCEPTION, late], "2026-07-20") == [CF_EXCEPTION._replace(status="", reviewed="")]
    assert known_on([CF_EXCEPTION, late], "2026-07-21") == [CF_EXCEPTION]
    assert known_on([CF_EXCEPTION, late], "") == [CF_EXCEPTION, late]
    cycle = Cycle("v1.37", "config", "release.current", "2026-05-18", WHERE, "line 32", CAL, "2026-07-22")
    early_cal = CAL._replace(dates={**CAL.dates, "code_freeze": KeyDate("code_freeze", "2026-07-20", 34, "x")})
    w = follow_calendar(Watch(cycle._replace(calendar=early_cal, as_of="2026-07-20"), entries(), ()), [CF_EXCEPTION])
    assert w.entries[1].reason.endswith("; v1.37 Code Freeze exception requested (release-1.37/exceptions.yaml)")


def test_after_the_release_day_shipped_or_missed():
    w = judged("2026-08-27")
    assert [(e.kep, e.state) for e in w.entries] == [
        ("9", "contradicted"),
        ("100", "missed"),
        ("200", "missed"),
        ("5526", "shipped"),
    ]
    assert w.entries[1].reason == (
        "v1.37 released 2026-08-26 (release-1.37/README.md) and its notes and the gate list do not say beta"
    )
    assert w.entries[3].reason.startswith("v1.37 released 2026-08-26 (release-1.37/README.md); the v1.37 note")


def test_without_the_records_the_states_stay_and_a_default_turned_off_still_shows():
    w = judged("", calendar=None)
    assert [(e.kep, e.state) for e in w.entries] == [(e.kep, e.state) for e in entries()]
    assert w.entries[3].reason.endswith("; but the v1.37 note #141209 turns its default off")
    assert list(w.counts()) == ["contradicted", "slipped", "no sign yet", "on track", "landed"]
    assert records_lines(w) == []
    assert "calendar" not in report_block(w)["release"]


def test_the_text_and_the_report_name_each_key_date_with_its_source():
    w = judged("2026-07-22")
    assert render_text(w).splitlines()[2:8] == [
        "Cycle began: 2026-05-18, from release-1.37/README.md (line 32)",
        "Enhancements Freeze: 2026-06-16, from release-1.37/README.md",
        "Code Freeze: 2026-07-22, from release-1.37/README.md",
        "Release: 2026-08-26, from release-1.37/README.md",
        "As of: 2026-07-22 (UTC), code freeze",
        "",
    ]
    release = report_block(w)["release"]
    assert (release["as_of"], release["calendar"]["code_freeze"]) == (
        "2026-07-22",
        {"day": "2026-07-22", "source": WHERE, "line": 34},
    )
