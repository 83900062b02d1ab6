"""``kep-sync health``: is the service keeping up with its schedule? (The container HEALTHCHECK.)

Healthy when the service that recorded the state is still running (same pid, start time and boot), the
latest run did not fail and no scheduled run has become
overdue since the later of the last good run and the service start. A run is
overdue :data:`LATE_ALLOWANCE` after its fire time (the misfire grace plus
time for the run itself). Facts come from the state directory only.
"""

from __future__ import annotations

import datetime
from typing import NamedTuple

from apscheduler.triggers.base import BaseTrigger

from bot.service.liveness import still_running
from bot.service.serve import MISFIRE_GRACE_SECONDS
from bot.service.state import State

#: How late after its fire time a run may finish before the service is unhealthy.
LATE_ALLOWANCE = datetime.timedelta(seconds=MISFIRE_GRACE_SECONDS) + datetime.timedelta(minutes=30)

#: How far in the future a recorded time may be (clocks of two hosts disagree a little) before it is a fault:
#: past it, "since" would never be overdue and the service would stay healthy forever.
CLOCK_SKEW_ALLOWANCE = datetime.timedelta(minutes=5)


class Health(NamedTuple):
    """``ok`` and a one-line ``reason`` for humans (printed by ``kep-sync health``)."""

    ok: bool
    reason: str


def utc_text(value: datetime.datetime | str) -> str:
    """A time as ISO 8601 in UTC (``2026-03-30T22:00:00+00:00``); a string that is not ISO 8601 stays as is."""
    try:
        moment = value if isinstance(value, datetime.datetime) else datetime.datetime.fromisoformat(value)
        return moment.astimezone(datetime.UTC).isoformat()
    except (TypeError, ValueError, OverflowError):
        return str(value)


def check_health(state: State, trigger: BaseTrigger, now: datetime.datetime) -> Health:
    """Judge ``state`` against the schedule ``trigger`` at ``now`` (timezone-aware). Every time in the
    reason is in UTC, whatever ``schedule.timezone`` is. A recorded time more than
    :data:`CLOCK_SKEW_ALLOWANCE` after ``now`` is unhealthy (it would hide every overdue run)."""
    if still_running(state.service_process) is False:
        return Health(
            False,
            f"the service that recorded this state (pid {state.service_process.partition(':')[0]}, "
            f"started {utc_text(state.service_started)}) is no longer running",
        )
    last = state.last_run
    if last is not None and not last.ok:
        return Health(False, f"last run {last.run_id} failed at {utc_text(last.finished)}: {last.error}")
    try:
        marks = [
            datetime.datetime.fromisoformat(t)
            for t in (state.last_success.started if state.last_success else "", state.service_started)
            if t
        ]
        if not marks:
            return Health(False, "no service start and no run recorded in the state directory")
        since = max(marks)
        recorded = [("service start", state.service_started), ("last run finished", last.finished if last else "")]
        for what, text in [("last good run", state.last_success.started if state.last_success else ""), *recorded]:
            if text and datetime.datetime.fromisoformat(text) > now + CLOCK_SKEW_ALLOWANCE:
                return Health(
                    False,
                    f"the state directory records a {what} time in the future: {utc_text(text)} "
                    f"is after now ({utc_text(now)}) by more than "
                    f"{int(CLOCK_SKEW_ALLOWANCE.total_seconds() // 60)} minutes (a wrong clock?)",
                )
        due = trigger.get_next_fire_time(None, since + datetime.timedelta(seconds=1))
        late = due is not None and due + LATE_ALLOWANCE <= now
    except (TypeError, ValueError, OverflowError) as exc:
        return Health(False, f"the state directory holds a time that is not a usable ISO 8601 time ({exc})")
    if late:
        return Health(
            False, f"run due at {utc_text(due)} has not succeeded (last good run or start: {utc_text(since)})"
        )
    if last is None:
        return Health(True, f"service started at {utc_text(since)}; no run due yet")
    return Health(
        True, f"last run {last.run_id} {last.result} at {utc_text(last.finished)}, revision {last.revision or '-'}"
    )
