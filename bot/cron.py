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

import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.combining import OrTrigger
from apscheduler.triggers.cron import CronTrigger

MACROS = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
          "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *"}
#: APScheduler's weekday names, indexed by the standard crontab number (0 = Sunday).
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
    from zoneinfo import available_timezones

    match = {zone.casefold(): zone for zone in available_timezones()}.get(name.strip().casefold())
    if match is None:
        raise ValueError(f"unknown time zone {name!r} (expected an IANA name such as UTC or Europe/Berlin)")
    return match


def timezone(name: str) -> ZoneInfo:
    """The IANA time zone ``name`` (e.g. ``Europe/Berlin``, any case: :func:`canonical_zone`);
    raises ``ValueError`` for an unknown one."""
    return ZoneInfo(canonical_zone(name))


def parse_crontab(expr: str, tz: str = "UTC") -> BaseTrigger:
    """A trigger firing at the times the standard crontab line ``expr`` names, in time zone ``tz``.

    Returns a ``CronTrigger``, or an ``OrTrigger`` of two when both day fields are
    restricted. Raises ``ValueError`` naming the field and value that is wrong.
    """
    zone = timezone(tz)
    text = MACROS.get(expr.strip().lower(), expr.strip())
    fields = text.split()
    if len(fields) != 5:
        raise ValueError(f"{expr!r}: expected 5 fields (minute hour day-of-month month day-of-week) or a macro "
                         f"such as @daily, got {len(fields)} field(s)")
    values, errors = [], []
    for field, spec in zip(fields, _FIELDS):  # every field's error, not just the first
        try:
            values.append(_expand(expr, field, *spec))
        except ValueError as exc:
            errors.append(str(exc).removeprefix(f"{expr!r}: "))
    if errors:
        raise ValueError(f"{expr!r}: " + "; ".join(errors))
    minute, hour, dom, month = (",".join(map(str, v)) for v in values[:4])
    days = "*" if len(values[4]) == 7 else ",".join(DAY_NAMES[d] for d in values[4])

    def trigger(day: str, day_of_week: str) -> CronTrigger:
        return CronTrigger(minute=minute, hour=hour, day=day, month=month, day_of_week=day_of_week, timezone=zone)

    if not fields[2].startswith("*") and not fields[4].startswith("*"):
        result: BaseTrigger = OrTrigger([trigger(dom, "*"), trigger("*", days)])
    else:
        result = trigger(dom, days)
    start = datetime.datetime(2024, 1, 1, tzinfo=zone)  # a leap year starts the 8-year window
    if result.get_next_fire_time(None, start) is None or \
            result.get_next_fire_time(None, start).year > start.year + 8:
        raise ValueError(f"{expr!r}: never fires (no such date, e.g. 31 February)")
    return result


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
