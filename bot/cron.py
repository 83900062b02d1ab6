"""Standard crontab expressions as APScheduler 3.x triggers.

APScheduler's ``CronTrigger.from_crontab`` numbers weekdays from Monday = 0, so
the standard ``0 6 * * 1-5`` would fire Tuesday to Saturday. :func:`parse_crontab`
follows crontab(5) (Vixie cron / cronie) instead:

- five fields: minute (0-59), hour (0-23), day of month (1-31), month (1-12 or
  ``jan``..``dec``), day of week (0-7 or ``sun``..``sat``; 0 and 7 are Sunday);
- items ``*``, ``N``, ``N-M``, each with an optional ``/STEP``, joined by commas;
- when both day of month and day of week are restricted (neither starts with
  ``*``), a day matches if EITHER matches (``0 0 1 * 1``: the 1st and every Monday);
- macros ``@yearly`` (``@annually``), ``@monthly``, ``@weekly``, ``@daily``
  (``@midnight``) and ``@hourly``.
"""

from __future__ import annotations

import datetime
import functools
import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from apscheduler.triggers.base import BaseTrigger

MACROS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
#: Weekday names, indexed by the standard crontab number (0 = Sunday).
DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_FIELDS = (("minute", 0, 59), ("hour", 0, 23), ("day of month", 1, 31), ("month", 1, 12), ("day of week", 0, 7))
_ITEM_RE = re.compile(r"^(\*|[0-9A-Za-z]+(?:-[0-9A-Za-z]+)?)(?:/([0-9]+))?$")


def canonical_zone(name: str) -> str:
    """The IANA time zone name ``name`` matches, case-insensitively, as IANA writes it
    (``utc`` -> ``UTC``, ``europe/berlin`` -> ``Europe/Berlin``).

    Raises ``ValueError`` naming ``name`` when no IANA zone (system zoneinfo or the ``tzdata`` package) matches.
    """
    try:
        ZoneInfo(name)
        return name
    except (ZoneInfoNotFoundError, ValueError):
        pass
    except OSError as exc:  # a name too long for the file system
        raise ValueError(f"unknown time zone {name!r} ({exc.strerror or exc})") from None
    match = _zones_by_folded_name().get(name.strip().casefold())
    if match is None:
        raise ValueError(f"unknown time zone {name!r} (expected an IANA name such as UTC or Europe/Berlin)")
    return match


@functools.cache
def _zones_by_folded_name() -> dict[str, str]:
    """``{casefolded IANA name: IANA name}``; built once (listing the zones walks the zoneinfo tree: ~8 ms)."""
    from zoneinfo import available_timezones

    return {zone.casefold(): zone for zone in available_timezones()}


def timezone(name: str) -> ZoneInfo:
    """The IANA time zone ``name`` (e.g. ``Europe/Berlin``, any case: :func:`canonical_zone`);
    raises ``ValueError`` for an unknown one."""
    return ZoneInfo(canonical_zone(name))


def parse_crontab(expr: str, tz: str = "UTC") -> BaseTrigger:
    """A :class:`CrontabTrigger` firing at the times the standard crontab line ``expr`` names, in time zone ``tz``.

    Raises ``ValueError`` naming the field and value that is wrong, or when the line never fires.
    """
    zone = timezone(tz)
    text = MACROS.get(expr.strip().lower(), expr.strip())
    fields = text.split()
    if len(fields) != 5:
        raise ValueError(
            f"{expr!r}: expected 5 fields (minute hour day-of-month month day-of-week) or a macro "
            f"such as @daily, got {len(fields)} field(s)"
        )
    values, errors = [], []
    for field, spec in zip(fields, _FIELDS, strict=True):  # every field's error, not just the first
        try:
            values.append(_expand(expr, field, *spec))
        except ValueError as exc:
            errors.append(str(exc).removeprefix(f"{expr!r}: "))
    if errors:
        raise ValueError(f"{expr!r}: " + "; ".join(errors))
    fixed = "*" not in fields[0] and "*" not in fields[1]
    either = not fields[2].startswith("*") and not fields[4].startswith("*")
    result = CrontabTrigger(expr, *values, either_day=either, fixed_time=fixed, zone=zone)
    start = datetime.datetime(2024, 1, 1, tzinfo=zone)  # a leap year starts the 8-year window
    first = result.get_next_fire_time(None, start)
    if first is None or first.year > start.year + 8:
        raise ValueError(f"{expr!r}: never fires (no such date, e.g. 31 February)")
    return result


class CrontabTrigger(BaseTrigger):
    """An APScheduler 3.x trigger for one standard crontab line, computed on the local calendar of ``zone``.

    Built by :func:`parse_crontab`. The next fire time is found day by day in local wall time, so a
    daily time fires on every calendar day it names, DST days included (APScheduler 3.11's
    ``CronTrigger`` skips the day after spring-forward for 00:00 and 00:30, agronholm/apscheduler#606).
    Around DST changes it does what cron(8) (cronie) does: a job at a fixed time (no ``*`` in the
    minute or hour field) whose time is skipped when clocks go forward runs at the change, and runs
    once when its time is repeated as clocks go back; a job with ``*`` in the minute or hour field
    follows the new wall time (skipped times do not run, repeated ones run again).
    """

    #: How far ahead a fire time is looked for, days (the crontab check needs 8 years).
    HORIZON_DAYS = 366 * 9

    def __init__(
        self,
        expr: str,
        minutes: list[int],
        hours: list[int],
        days: list[int],
        months: list[int],
        weekdays: list[int],
        *,
        either_day: bool,
        fixed_time: bool,
        zone: ZoneInfo,
    ):
        self.expr, self.zone, self.either_day, self.fixed_time = expr, zone, either_day, fixed_time
        self.minutes, self.hours = minutes, hours
        self.days, self.months, self.weekdays = frozenset(days), frozenset(months), frozenset(weekdays)
        self.timezone = zone  # what APScheduler's own triggers expose

    def __str__(self) -> str:
        return f"crontab[{self.expr!r}, {self.zone.key}]"

    def __repr__(self) -> str:
        return f"<CrontabTrigger ({self.expr!r}, timezone={self.zone.key!r})>"

    def get_next_fire_time(
        self, previous_fire_time: datetime.datetime | None, now: datetime.datetime
    ) -> datetime.datetime | None:
        """The first fire time after ``previous_fire_time``, or at or after ``now`` when there is none (APScheduler
        passes the last fire time to compute the next), as an aware datetime in the zone; ``None`` when none comes
        within :data:`HORIZON_DAYS` days."""
        # In UTC: aware datetimes sharing a tzinfo compare by wall time, which the repeated hour makes ambiguous.
        utc = datetime.UTC
        start = now.astimezone(utc)
        if previous_fire_time is not None:  # strictly after the previous fire time
            start = previous_fire_time.astimezone(utc) + _TICK
        first_day = start.astimezone(self.zone).date() - datetime.timedelta(days=1)
        for offset in range(self.HORIZON_DAYS):
            day = first_day + datetime.timedelta(days=offset)
            if day.month not in self.months or not self._day_matches(day):
                continue
            for instant in self._instants(day):
                if instant >= start:
                    return instant.astimezone(self.zone)
        return None

    def _day_matches(self, day: datetime.date) -> bool:
        by_date, by_weekday = day.day in self.days, (day.weekday() + 1) % 7 in self.weekdays
        return (by_date or by_weekday) if self.either_day else (by_date and by_weekday)

    def _instants(self, day: datetime.date) -> list[datetime.datetime]:
        """The fire times of ``day`` (local date), sorted, each an aware datetime in UTC."""
        out = set()
        for hour in self.hours:
            for minute in self.minutes:
                wall = datetime.datetime.combine(day, datetime.time(hour, minute))
                early = wall.replace(tzinfo=self.zone).astimezone(datetime.UTC)
                if early.astimezone(self.zone).replace(tzinfo=None) != wall:  # skipped by a DST change
                    if self.fixed_time:
                        out.add(self._change_instant(wall))
                    continue
                out.add(early)
                late = wall.replace(tzinfo=self.zone, fold=1).astimezone(datetime.UTC)
                if late != early and not self.fixed_time:  # repeated wall time: a '*' job runs again
                    out.add(late)
        return sorted(out)

    def _change_instant(self, wall: datetime.datetime) -> datetime.datetime:
        """The instant the clocks jumped over ``wall`` (a naive local time that does not exist), UTC."""
        utc = datetime.UTC
        low = wall.replace(tzinfo=self.zone, fold=1).astimezone(utc)  # before the change
        high = wall.replace(tzinfo=self.zone, fold=0).astimezone(utc)  # after it
        while high - low > datetime.timedelta(seconds=1):
            mid = low + (high - low) / 2
            if mid.astimezone(self.zone).replace(tzinfo=None) >= wall:
                high = mid
            else:
                low = mid
        return high


_TICK = datetime.timedelta(microseconds=1)


def _expand(expr: str, field: str, name: str, low: int, high: int) -> list[int]:
    """The sorted values one field selects; day of week 7 folds onto 0 (Sunday)."""
    chosen: set[int] = set()
    for item in field.split(","):
        m = _ITEM_RE.match(item)
        if not m:
            raise ValueError(f"{expr!r}: {name} item {item!r} is not N, N-M or *, with an optional /STEP")
        span, step = m.group(1), int(m.group(2) or 1)
        if step < 1:
            raise ValueError(f"{expr!r}: {name} step in {item!r} must be at least 1")
        if span == "*":
            first, last = low, (6 if name == "day of week" else high)
        elif "-" in span:
            first, last = (_number(expr, part, name, low, high) for part in span.split("-"))
            if first > last:
                raise ValueError(f"{expr!r}: {name} range {span!r} runs backwards")
        else:
            first = _number(expr, span, name, low, high)
            last = high if m.group(2) else first
        chosen.update(range(first, last + 1, step))
    if name == "day of week" and 7 in chosen:
        chosen = (chosen - {7}) | {0}
    return sorted(chosen)


def _number(expr: str, text: str, name: str, low: int, high: int) -> int:
    names = DAY_NAMES if name == "day of week" else _MONTHS if name == "month" else ()
    if text.lower() in names:
        return names.index(text.lower()) + (1 if name == "month" else 0)
    if not text.isdigit() or not low <= int(text) <= high:
        raise ValueError(f"{expr!r}: {name} value {text!r} is out of range {low}-{high}")
    return int(text)
