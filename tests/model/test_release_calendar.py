"""bot.model.release_calendar: the release team's key dates in every format 1.20-1.37 used, and freeze exceptions
in both shapes of exceptions.yaml; a date or item it cannot read is a problem, never a guess."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.model.kep import Problem
from bot.model.release_calendar import (
    FreezeException,
    Records,
    key_date_of,
    parse_calendar,
    parse_day,
    parse_exceptions,
)


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("Monday, August 23, 2021", "2021-08-23"),  # 1.23: month first
        ("Monday 10th January 2022", "2022-01-10"),
        ("02:00 UTC Friday 4th February 2022 / 18:00 PST Thursday 3rd February 2022", "2022-02-04"),  # the UTC day
        ("18:00 PDT Tuesday 29th March 2022 / 01:00 UTC Wednesday 30th March 2022", "2022-03-30"),
        ("21:00 UTC Friday 20th June 2025 / 14:00 PST Friday 20th June 2025", "2025-06-20"),
        ("Tuesday 16th June 2026 (AoE) / Wednesday 17th June 2026, 12:00 UTC", "2026-06-16"),  # AoE: the day given
        ("Wednesday 23th April 2025", "2025-04-23"),  # typos in the suffix
        ("Wednesday 01st April 2026", "2026-04-01"),
        ("01:00 UTC Wednesday 26nd July 2023 / 17:00 PDT Tuesday 25th July 2023", "2023-07-26"),
        ("Monday 24th - Friday 28th October 2022", "2022-10-24"),  # a range: its first day
        ("Tuesday, Oct 6th, 2020", "2020-10-06"),
    ],
)
def test_every_format_gives_its_utc_day(text, day):
    assert parse_day(text) == (day, "")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Monday, September 14th", "no year in 'Monday, September 14th'"),
        ("Tuesday 17th June 2026", "2026-06-17 is a Wednesday, not Tuesday"),
        ("Monday 31st February 2026", "no such day: 'Monday 31st February 2026'"),
        ("TBC", "no date in 'TBC'"),
        ("18:00 PST Thursday 3rd February 2022 / 19:00 EST Thursday 3rd February 2022", "2 dates and none in UTC"),
    ],
)
def test_a_date_it_cannot_read_is_never_guessed(text, why):
    day, said = parse_day(text)
    assert day == ""
    assert said.startswith(why)


@given(st.dates(datetime.date(2020, 1, 1), datetime.date(2035, 12, 31)), st.sampled_from(range(4)))
def test_any_day_written_as_the_release_team_writes_it_reads_back(day, style):
    weekday, month = day.strftime("%A"), day.strftime("%B")
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10 if day.day not in (11, 12, 13) else 0, "th")
    nth = f"{day.day}{suffix}"
    text = [
        f"{weekday} {nth} {month} {day.year}",
        f"{weekday}, {month} {day.day}, {day.year}",
        f"02:00 UTC {weekday} {nth} {month} {day.year} / 19:00 PDT Someday 1st {month} {day.year}",
        f"{weekday} {nth} {month} {day.year} (AoE) / Otherday 2nd {month} {day.year}, 12:00 UTC",
    ][style]
    assert parse_day(text) == (day.isoformat(), "")


README = """# Kubernetes 1.34

The v1.34 release cycle is as follows:

- **Monday 19th May 2025**: Week 1 — Release cycle begins
- **Thursday 12th June 2025**:
  Week 4 — [Production Readiness Freeze][Production Readiness Freeze]
- **[21:00 UTC Friday 20th June 2025 / 14:00 PST Friday 20th June 2025](https://everytimezone.com/s/a17d0bdd)**:
  Week 5 — [Enhancements Freeze][Enhancements Freeze]
- **[02:00 UTC Friday 25th July 2025 / 19:00 PDT Thursday 24th July 2025](https://everytimezone.com/s/a2c01c54)**:
  Week 10 — [Code Freeze][Code Freeze] and [Test Freeze][Test Freeze]
- **Monday 10th - Thursday 13th November 2025**: Week 9 - [KubeCon NA](https://events.example/)
- **Tuesday 5th August 2025**: Week 12 — Docs must be completed and reviewed
- **Wednesday 27th August 2025**: Week 15 — Kubernetes v1.34.0 released

## Timeline

| What | Who | When | Week |
|---|---|---|---|
| **Begin [Code Freeze]** | Branch Manager | Friday 1st August 2025 | week 11 |
"""


def test_the_summary_list_gives_each_key_date_with_its_line():
    calendar, problems = parse_calendar("v1.34", "release-1.34/README.md", README)
    assert problems == []
    assert {k: (d.day, d.line) for k, d in calendar.dates.items()} == {
        "started": ("2025-05-19", 5),
        "prr_freeze": ("2025-06-12", 6),
        "enhancements_freeze": ("2025-06-20", 8),
        "code_freeze": ("2025-07-25", 10),  # the Summary list, not the table below it
        "docs_freeze": ("2025-08-05", 13),
        "release_day": ("2025-08-27", 14),
    }
    assert calendar.named("code_freeze") == "2025-07-25 (release-1.34/README.md)"
    assert (calendar.day("test_freeze"), calendar.named("nothing")) == ("", "")


def test_an_unreadable_key_date_is_a_problem_naming_file_and_line_and_is_left_out():
    text = README.replace("Monday 19th May 2025", "Monday, May 19th").replace("Wednesday 27th", "Tuesday 27th")
    calendar, problems = parse_calendar("v1.34", "release-1.34/README.md", text)
    assert problems == [
        Problem("release-1.34/README.md", "line 5", "cycle began: no year in 'Monday, May 19th'; not read"),
        Problem("release-1.34/README.md", "line 14", "release day: 2025-08-27 is a Wednesday, not Tuesday; not read"),
    ]
    assert "started" not in calendar.dates and "release_day" not in calendar.dates
    _, problems = parse_calendar("v1.34", "x/README.md", "# no schedule here\n")
    assert [p.message for p in problems] == [
        "no Summary list of key dates (a line saying 'release cycle is' and bullets)"
    ]


@pytest.mark.parametrize(
    ("label", "key"),
    [
        ("[Production Readiness Soft Freeze](https://groups.google.com/x)", "prr_freeze"),
        ("[Code Freeze](../release_phases.md#code-freeze) and [Test Freeze](../x)", "code_freeze"),
        ("[Test Freeze](../release_phases.md#test-freeze)", ""),
        ("[Feature blog freeze][Feature blog freeze]", ""),
        ("Kubernetes v1.20.0 released", "release_day"),
        ("[Docs Freeze][Docs Freeze]", "docs_freeze"),
        ("[Release Retrospective][Retrospective Document] part 1", ""),
    ],
)
def test_summary_labels_name_the_key_dates(label, key):
    assert key_date_of(label) == key


NEW = """# Exception requests in v1.36
enhancementFreeze:
- name: "Kubelet-in-UserNS (aka Rootless mode)"
  issue: 2033
  date_requested: 2026-02-12
  date_reviewed: 2026-02-18
  thread: "https://groups.google.com/g/kubernetes-sig-release/c/yjLRh5-uYfU"
  pull_requests:
    - "https://github.com/kubernetes/enhancements/pull/5694"
  status: "rejected"

# Code Freeze Exceptions requested in v1.36
codeFreeze:
- name: "Pod-Level Resource Managers"
  issue: 5526
  date_requested: 2026-03-17
  thread: "https://groups.google.com/g/x"
  status: approved
"""

OLD = """# Exceptions requested in 1.20
# Enhancements Freeze Exceptions requested in 1.20
- name: "APIServer Tracing"
  issue: 647
  date_requested: 2020-10-08
  status: "approved"

- name: "Core images"
  issue: 1729
  pull_requests:
  - "https://github.com/kubernetes/kubernetes/issues/70249",
  - "https://github.com/kubernetes/kubernetes/issues/90698"
  status: "approved"
\u200b
# Code Freeze Exceptions requested in 1.20
- name: "Something"
  issue: TBD
  status: denied
- name: "Sidecars"
  issue: 753
  date_requested: 2020-11-10
  date_reviewed: 2020-11-11
  status: "Denied"
"""


def test_exceptions_in_the_mapping_shape():
    found, problems = parse_exceptions("v1.36", "release-1.36/exceptions.yaml", NEW)
    assert problems == []
    assert found == [
        FreezeException(
            2033,
            "enhancementFreeze",
            "v1.36",
            "Kubelet-in-UserNS (aka Rootless mode)",
            "2026-02-12",
            "2026-02-18",
            "rejected",
            "https://groups.google.com/g/kubernetes-sig-release/c/yjLRh5-uYfU",
            "release-1.36/exceptions.yaml",
            3,
        ),
        FreezeException(
            5526,
            "codeFreeze",
            "v1.36",
            "Pod-Level Resource Managers",
            "2026-03-17",
            "",
            "approved",
            "https://groups.google.com/g/x",
            "release-1.36/exceptions.yaml",
            14,
        ),  # fmt: skip
    ]
    assert found[0].words() == "v1.36 Enhancements Freeze exception rejected 2026-02-18 (release-1.36/exceptions.yaml)"
    assert (found[0].granted, found[1].granted) == (False, True)


def test_exceptions_in_the_old_shape_one_bad_item_is_a_problem_the_rest_count():
    found, problems = parse_exceptions("v1.20", "release-1.20/exceptions.yaml", OLD)
    assert [(e.kep, e.kind, e.status, e.line) for e in found] == [
        (647, "enhancementFreeze", "approved", 3),
        (753, "codeFreeze", "denied", 19),
    ]
    assert [(p.key, p.message.split(" (")[0]) for p in problems] == [
        ("line 8", "exception not read: not YAML"),  # the trailing comma upstream wrote in 1.20
        ("line 16", "exception not read: no KEP number"),
    ]
    assert all(p.path == "release-1.20/exceptions.yaml" for p in problems)
    records = Records("src", {}, {"v1.20": tuple(found)})
    assert [e.kep for e in records.of_kep(753)] == [753]
    assert (records.of_kep(753, "v1.21"), records.of_kep(1)) == ([], [])


def test_a_status_the_release_team_never_uses_is_a_problem_and_read_as_none():
    text = (
        "enhancementFreeze:\n"
        '- name: "a"\n  issue: 1\n  status: "approved <!-- kep-sync:dashboard:end -->\\n- [x] Run now"\n'
        '- name: "b"\n  issue: 2\n  status: [approved]\n'
        '- name: "c"\n  issue: 3\n  status: Pending\n'
    )
    found, problems = parse_exceptions("v1.36", "release-1.36/exceptions.yaml", text)
    assert [(e.kep, e.status, e.line) for e in found] == [(1, "", 2), (2, "", 5), (3, "pending", 8)]
    known = "approved, rejected, denied, removed, pending, withdrawn"
    assert [(p.path, p.key, p.message) for p in problems] == [
        ("release-1.36/exceptions.yaml", "line 2", f"exception of KEP 1: status not one of {known}; read as none"),
        ("release-1.36/exceptions.yaml", "line 5", "exception of KEP 2: status is a list, not text; read as none"),
    ]


def test_key_dates_out_of_order_or_given_twice_are_problems_and_not_used():
    text = (
        "The v1.38 release cycle is as follows:\n\n"
        "- **Monday 7th September 2026**: Week 1 — Release cycle begins\n"
        "- **Thursday 1st October 2026**: Week 4 — Enhancements Freeze\n"
        "- **Friday 25th September 2026**: Week 9 — Code Freeze\n"
        "- **Tuesday 15th December 2026**: Week 14 — Kubernetes v1.38 released\n"
        "- **Tuesday 8th December 2026**: Week 14 — Kubernetes v1.38 released\n"
        "- **Tuesday 15th December 2026**: Week 14 — Kubernetes v1.38 released\n"
        "- **Thursday 1st October 2026**: Week 4 — Enhancements Freeze\n"
    )
    calendar, problems = parse_calendar("v1.38", "release-1.38/README.md", text)
    assert {k: (v.day, v.line) for k, v in calendar.dates.items()} == {
        "started": ("2026-09-07", 3),
        "enhancements_freeze": ("2026-10-01", 4),
    }
    assert problems == [
        Problem(
            "release-1.38/README.md", "line 7", "release day: 2026-12-08 here, 2026-12-15 on line 6; neither is used"
        ),
        Problem(
            "release-1.38/README.md",
            "line 5",
            "Code Freeze 2026-09-25 is before the Enhancements Freeze 2026-10-01 (line 4); not used",
        ),
    ]


def test_every_item_is_read_whatever_its_first_key_and_a_wrong_shape_is_a_problem_naming_its_line():
    text = (
        "enhancementFreeze:\n"
        "- issue: 1\n  name: first key is issue\n  status: approved\n"
        "- just a string\n"
        "- name: [a, b]\n  issue: 2\n  date_reviewed: {day: 3}\n"
        "- name: x\n  issue: [3]\n"
        "codeFreeze:\n"
        "\u200b\n"
        "- {name: y, issue: '4', status: denied}\n"
        "notes: []\n"
    )
    found, problems = parse_exceptions("v1.36", "r/exceptions.yaml", text)
    assert [(e.kep, e.kind, e.name, e.reviewed, e.status, e.line) for e in found] == [
        (1, "enhancementFreeze", "first key is issue", "", "approved", 2),
        (2, "enhancementFreeze", "", "", "", 6),
        (4, "codeFreeze", "y", "", "denied", 13),
    ]
    assert [(p.key, p.message) for p in problems] == [
        ("key notes", "not a freeze (enhancementFreeze, codeFreeze, docsFreeze); not read"),
        ("line 5", "exception not read: text, not a mapping of name, issue, status"),
        ("line 6", "exception of KEP 2: name is a list, not text; read as none"),
        ("line 6", "exception of KEP 2: date_reviewed is a mapping, not text; read as none"),
        ("line 9", "exception not read: no KEP number (issue a list)"),
    ]
    assert all(p.path == "r/exceptions.yaml" for p in problems)


def test_a_file_that_is_one_scalar_or_an_old_list_is_read_as_such():
    assert parse_exceptions("v1.36", "r/e.yaml", "just text\n") == (
        [],
        [Problem("r/e.yaml", "line 1", "not a list of exceptions nor a mapping of freezes; not read")],
    )
    old = "# Code Freeze Exceptions requested in 1.21\n- issue: 7\n  name: n\n"
    found, problems = parse_exceptions("v1.21", "r/e.yaml", old)
    assert ([(e.kep, e.kind, e.line) for e in found], problems) == ([(7, "codeFreeze", 2)], [])


def test_a_commit_day_is_its_utc_day_wherever_the_committer_was():
    from bot.model.history.log import utc_day

    assert [
        utc_day(d)
        for d in (
            "2026-04-07T05:59:00+09:00",
            "2026-04-06T20:59:00Z",
            "2026-04-06T23:30:00-04:00",
            "2026-04-06",
            "x",
            "",
        )
    ] == ["2026-04-06", "2026-04-06", "2026-04-07", "2026-04-06", "x", ""]


def test_the_upstream_column_and_the_rewritten_milestones_print_the_utc_day():
    from bot.model.history.provenance import Upstream
    from bot.plan.changelog.rows import upstream_cell

    up = Upstream("a" * 40, "2026-04-07T05:59:00+09:00", 5694, "KEP-2033: postpone beta", True, "v1.35")
    assert upstream_cell(up, "https://x", subject=False) == "[#5694](https://x/pull/5694) 2026-04-06"
