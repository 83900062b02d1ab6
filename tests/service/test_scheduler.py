"""Crontab semantics, DST and the APScheduler job options of ``kep-sync serve``, without sleeping."""

from __future__ import annotations

import datetime
import threading
from zoneinfo import ZoneInfo

import pytest
from apscheduler.events import EVENT_JOB_EXECUTED
from apscheduler.schedulers.base import STATE_RUNNING
from apscheduler.triggers.cron import CronTrigger

from bot.config import ScheduleConfig
from bot.cron import parse_crontab
from bot.log import configure
from bot.service.serve import JOB_ID, MISFIRE_GRACE_SECONDS, Runner, build_scheduler

UTC = datetime.UTC
GUARD = 30  # seconds: a hang fails the test instead of blocking it


def fires(expr: str, tz: str, start: datetime.datetime, n: int) -> list[str]:
    """The next ``n`` fire times after ``start`` as ISO strings with the local offset."""
    trigger, out, prev = parse_crontab(expr, tz), [], None
    for _ in range(n):
        prev = trigger.get_next_fire_time(prev, prev or start)
        out.append(prev.isoformat())
    return out


SUNDAY = datetime.datetime(2026, 3, 1, 7, 0, tzinfo=UTC)  # 2026-03-01 is a Sunday


def test_weekdays_1_to_5_are_monday_to_friday_not_apschedulers_tuesday_to_saturday():
    assert fires("0 6 * * 1-5", "UTC", SUNDAY, 6) == [
        "2026-03-02T06:00:00+00:00",
        "2026-03-03T06:00:00+00:00",
        "2026-03-04T06:00:00+00:00",
        "2026-03-05T06:00:00+00:00",
        "2026-03-06T06:00:00+00:00",
        "2026-03-09T06:00:00+00:00",
    ]
    # what CronTrigger.from_crontab would have done with the same line:
    naive = CronTrigger.from_crontab("0 6 * * 1-5", timezone="UTC")
    assert naive.get_next_fire_time(None, SUNDAY).isoformat() == "2026-03-03T06:00:00+00:00"


@pytest.mark.parametrize("dow", ["0", "7", "sun", "SUN"])
def test_sunday_is_0_or_7_or_its_name(dow):
    assert fires(f"0 6 * * {dow}", "UTC", SUNDAY, 2) == ["2026-03-08T06:00:00+00:00", "2026-03-15T06:00:00+00:00"]


def test_weekday_steps_and_lists_count_from_sunday():
    assert fires("0 6 * * */3", "UTC", SUNDAY, 3) == [  # Sunday, Wednesday, Saturday
        "2026-03-04T06:00:00+00:00",
        "2026-03-07T06:00:00+00:00",
        "2026-03-08T06:00:00+00:00",
    ]
    assert fires("0 6 * * mon,5-7", "UTC", SUNDAY, 4) == [
        "2026-03-02T06:00:00+00:00",
        "2026-03-06T06:00:00+00:00",
        "2026-03-07T06:00:00+00:00",
        "2026-03-08T06:00:00+00:00",
    ]


def at(*args: int) -> datetime.datetime:
    return datetime.datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize(
    ("cron", "tz", "start", "expected"),
    [
        pytest.param(
            "0 0 1 * 1",
            "UTC",
            at(2026, 6, 20),
            ["2026-06-22T00:00:00+00:00", "2026-06-29T00:00:00+00:00", "2026-07-01T00:00:00+00:00"],
            id="restricted day of month OR weekday, like cron",
        ),
        pytest.param(
            "0 0 */10 * 1",
            "UTC",
            at(2026, 1, 1),
            [  # a field starting with '*' counts as unrestricted
                "2026-05-11T00:00:00+00:00",
                "2026-06-01T00:00:00+00:00",
                "2026-08-31T00:00:00+00:00",
            ],
            id="star-step day of month AND weekday",
        ),
        pytest.param(
            "30 2 * * *",
            "Europe/Berlin",
            at(2026, 3, 27),
            [  # 02:30 does not exist on 03-29: at the change
                "2026-03-27T02:30:00+01:00",
                "2026-03-28T02:30:00+01:00",
                "2026-03-29T03:00:00+02:00",
                "2026-03-30T02:30:00+02:00",
            ],
            id="spring forward in Berlin fires once, at the change, like cron(8)",
        ),
        pytest.param(
            "0 6 * * *",
            "America/New_York",
            at(2026, 10, 31),
            ["2026-10-31T06:00:00-04:00", "2026-11-01T06:00:00-05:00", "2026-11-02T06:00:00-05:00"],
            id="fall back in New York keeps local time",
        ),
        pytest.param("@weekly", "UTC", SUNDAY, ["2026-03-08T00:00:00+00:00"], id="@weekly"),
        pytest.param("@daily", "UTC", SUNDAY, ["2026-03-02T00:00:00+00:00"], id="@daily"),
        pytest.param("@hourly", "UTC", at(2026, 3, 1, 7, 1), ["2026-03-01T08:00:00+00:00"], id="@hourly"),
    ],
)
def test_next_fire_times(cron, tz, start, expected):
    assert fires(cron, tz, start, len(expected)) == expected


def test_repeated_hour_at_fall_back_fires_a_fixed_time_once_like_cron():
    # cron(8): a job at a fixed time in the repeated hour is not run again
    assert fires("30 2 * * *", "Europe/Berlin", datetime.datetime(2026, 10, 24, 12, tzinfo=UTC), 3) == [
        "2026-10-25T02:30:00+02:00",
        "2026-10-26T02:30:00+01:00",
        "2026-10-27T02:30:00+01:00",
    ]


def test_wildcard_hours_follow_the_new_wall_time_across_dst_like_cron():
    # '*' in the hour field: skipped times are not run, repeated ones run again (cron(8))
    assert fires("30 * * * *", "Europe/Berlin", datetime.datetime(2026, 3, 29, 0, 0, tzinfo=UTC), 3) == [
        "2026-03-29T01:30:00+01:00",
        "2026-03-29T03:30:00+02:00",
        "2026-03-29T04:30:00+02:00",
    ]
    assert fires("30 * * * *", "Europe/Berlin", datetime.datetime(2026, 10, 25, 0, 0, tzinfo=UTC), 3) == [
        "2026-10-25T02:30:00+02:00",
        "2026-10-25T02:30:00+01:00",
        "2026-10-25T03:30:00+01:00",
    ]


@pytest.mark.parametrize(
    ("cron", "zone", "fired", "expected"),
    [
        ("0 0 * * *", "Europe/Berlin", (2026, 3, 29, 0, 0), "2026-03-30T00:00:00+02:00"),
        ("@daily", "America/Los_Angeles", (2026, 3, 8, 0, 0), "2026-03-09T00:00:00-07:00"),
        ("30 0 * * *", "Europe/Berlin", (2026, 3, 29, 0, 30), "2026-03-30T00:30:00+02:00"),
        ("0 0 * * 1-5", "America/New_York", (2026, 3, 6, 0, 0), "2026-03-09T00:00:00-04:00"),
    ],
)
def test_midnight_after_spring_forward_fires_the_next_day(cron, zone, fired, expected):
    # APScheduler 3.11's CronTrigger answers two days later here (agronholm/apscheduler#606)
    prev = datetime.datetime(*fired, tzinfo=ZoneInfo(zone))
    trigger = parse_crontab(cron, zone)
    assert trigger.get_next_fire_time(prev, prev + datetime.timedelta(seconds=5)).isoformat() == expected
    assert trigger.get_next_fire_time(None, prev + datetime.timedelta(seconds=5)).isoformat() == expected


def _dst_days(zone: ZoneInfo, year: int) -> list[datetime.date]:
    """The local dates on which ``zone`` changes its UTC offset in ``year`` (none for a zone whose January and
    July offsets agree: it has no DST)."""

    def offset(day: datetime.date) -> datetime.timedelta:
        return datetime.datetime.combine(day, datetime.time(0), zone).utcoffset()

    first = datetime.date(year, 1, 1)
    if offset(first) == offset(datetime.date(year, 7, 1)):
        return []
    offsets = [offset(first + datetime.timedelta(days=n)) for n in range(367)]
    return [first + datetime.timedelta(days=n) for n in range(1, 366) if offsets[n] != offsets[n + 1]]


def _first_instant_at_or_after(wall: datetime.datetime, zone: ZoneInfo) -> datetime.datetime:
    """Oracle, by scanning UTC in 15-minute steps: the first instant whose local wall time reaches ``wall`` (the
    time itself, its first occurrence when repeated, or the DST change when the clocks jumped over it)."""
    t = wall.replace(tzinfo=zone, fold=1).astimezone(datetime.UTC) - datetime.timedelta(hours=3)
    while t.astimezone(zone).replace(tzinfo=None) < wall:
        t += datetime.timedelta(minutes=15)
    return t


def test_every_zone_fires_a_daily_fixed_time_once_a_day_around_its_dst_changes():
    from zoneinfo import available_timezones

    checked = 0
    for name in sorted(available_timezones()):
        zone = ZoneInfo(name)
        for day in _dst_days(zone, 2026):
            for hh, mm in ((0, 0), (0, 30), (1, 30), (2, 30), (23, 30)):
                trigger = parse_crontab(f"{mm} {hh} * * *", name)
                days = [day + datetime.timedelta(days=n) for n in (-1, 0, 1, 2)]
                want = [
                    _first_instant_at_or_after(datetime.datetime.combine(d, datetime.time(hh, mm)), zone) for d in days
                ]
                got, prev = [], None
                for _ in range(4):
                    prev = trigger.get_next_fire_time(prev, prev or want[0] - datetime.timedelta(hours=20))
                    got.append(prev.astimezone(datetime.UTC))  # fold-safe comparison
                assert got == want, (name, day, hh, mm, got)
                checked += 1
    assert checked > 500  # dozens of zones change offsets twice a year


@pytest.mark.parametrize(
    ("cron", "message"),
    [
        ("0 6 * * 8", "'0 6 * * 8': day of week value '8' is out of range 0-7"),
        (
            "0 6 * *",
            "'0 6 * *': expected 5 fields (minute hour day-of-month month day-of-week) or a macro such as "
            "@daily, got 4 field(s)",
        ),
        ("60 * * * *", "'60 * * * *': minute value '60' is out of range 0-59"),
        ("0 6 * * 5-1", "'0 6 * * 5-1': day of week range '5-1' runs backwards"),
        ("0 6 L * *", "'0 6 L * *': day of month value 'L' is out of range 1-31"),
        ("0 6 * * 1#2", "'0 6 * * 1#2': day of week item '1#2' is not N, N-M or *, with an optional /STEP"),
        (
            "@reboot",
            "'@reboot': expected 5 fields (minute hour day-of-month month day-of-week) or a macro such as "
            "@daily, got 1 field(s)",
        ),
    ],
)
def test_bad_crontab_lines_name_the_field(cron, message):
    with pytest.raises(ValueError) as err:
        parse_crontab(cron)
    assert str(err.value) == message


def test_unknown_time_zone_is_a_value_error():
    with pytest.raises(ValueError, match="unknown time zone 'Mars/Olympus'"):
        ScheduleConfig(timezone="Mars/Olympus")


def start_in_thread(scheduler) -> threading.Thread:
    thread = threading.Thread(target=scheduler.start, daemon=True)
    thread.start()
    return thread


def test_job_options_coalesce_one_instance_and_misfire_grace():
    scheduler = build_scheduler(lambda: None, parse_crontab("0 6 * * *"), UTC)
    job = scheduler.get_job(JOB_ID)
    assert (job.coalesce, job.max_instances, job.misfire_grace_time) == (True, 1, MISFIRE_GRACE_SECONDS)


def test_missed_runs_coalesce_into_one_run_of_the_latest_fire_time():
    now = datetime.datetime.now(UTC).replace(second=0, microsecond=0)
    # every minute until a minute ago, first fire time ten minutes ago: ten runs were missed
    trigger = CronTrigger(minute="*", end_date=now - datetime.timedelta(minutes=1), timezone=UTC)
    calls, done = [], threading.Event()
    scheduler = build_scheduler(lambda: calls.append(1), trigger, UTC, first_run=now - datetime.timedelta(minutes=10))
    scheduler.add_listener(lambda event: (calls.append(event.scheduled_run_time), done.set()), EVENT_JOB_EXECUTED)
    thread = start_in_thread(scheduler)
    assert done.wait(GUARD)
    scheduler.shutdown()
    thread.join(GUARD)
    assert calls == [1, now - datetime.timedelta(minutes=1)]


def test_a_failing_run_is_logged_and_the_service_keeps_its_schedule(capsys):
    configure()
    ran = threading.Event()

    def job():
        ran.set()
        raise RuntimeError("upstream exploded")

    runner = Runner(job)
    scheduler = build_scheduler(runner, parse_crontab("0 6 * * *"), UTC, first_run=datetime.datetime.now(UTC))
    executed = threading.Event()
    scheduler.add_listener(lambda event: executed.set(), EVENT_JOB_EXECUTED)
    thread = start_in_thread(scheduler)
    assert ran.wait(GUARD) and executed.wait(GUARD)
    assert scheduler.state == STATE_RUNNING
    next_run = scheduler.get_job(JOB_ID).next_run_time
    assert next_run == parse_crontab("0 6 * * *").get_next_fire_time(None, datetime.datetime.now(UTC))
    scheduler.shutdown()
    thread.join(GUARD)
    assert runner.wait_idle(0)
    assert '"error": "RuntimeError: upstream exploded", "event": "run crashed"' in capsys.readouterr().err


def test_runner_reports_a_run_in_progress():
    entered, release = threading.Event(), threading.Event()
    runner = Runner(lambda: (entered.set(), release.wait(GUARD)))
    thread = threading.Thread(target=runner)
    assert runner.busy is False
    thread.start()
    assert entered.wait(GUARD)
    assert runner.busy is True and runner.wait_idle(0) is False
    release.set()
    thread.join(GUARD)
    assert runner.wait_idle(0) is True and runner.busy is False


def test_zone_is_applied_to_the_trigger():
    trigger = parse_crontab("0 6 * * *", "Asia/Shanghai")
    assert trigger.get_next_fire_time(None, SUNDAY) == datetime.datetime(
        2026, 3, 2, 6, tzinfo=ZoneInfo("Asia/Shanghai")
    )


def test_a_crontab_that_never_fires_is_refused():
    with pytest.raises(ValueError, match=r"^'0 0 31 2 \*': never fires \(no such date, e.g. 31 February\)$"):
        parse_crontab("0 0 31 2 *")
    assert parse_crontab("0 0 29 2 *").get_next_fire_time(
        None, datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC)
    ).date() == datetime.date(2028, 2, 29)


def test_every_bad_field_of_a_crontab_is_named():
    with pytest.raises(ValueError) as info:
        parse_crontab("61 25 * * 8")
    assert str(info.value) == (
        "'61 25 * * 8': minute value '61' is out of range 0-59; hour value '25' is out of "
        "range 0-23; day of week value '8' is out of range 0-7"
    )


def test_a_stopped_runner_starts_no_run_and_says_whether_one_is_in_progress():
    calls = []
    idle = Runner(lambda: calls.append("idle"))
    assert idle.stop() is False
    idle()
    assert calls == [] and idle.busy is False
    entered, release = threading.Event(), threading.Event()
    running = Runner(lambda: (entered.set(), release.wait(GUARD)))
    thread = threading.Thread(target=running)
    thread.start()
    assert entered.wait(GUARD)
    assert running.stop() is True
    release.set()
    thread.join(GUARD)
    assert running.wait_idle(0) is True
