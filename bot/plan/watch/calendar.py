"""The watch's states that follow the release calendar (the release team's records,
:mod:`bot.model.release_calendar`). Pure: a :class:`~bot.plan.watch.judge.Watch` and the records in, the same
watch with its states set by the day it stands on (``Cycle.as_of``, UTC) out.

For the release ``R`` with key dates read, each stage judged ``on track`` or ``no sign yet`` becomes:

- ``planned`` before R's Enhancements Freeze (nothing is expected to have landed yet);
- ``at risk`` from R's Code Freeze day on (the AoE deadline is the day given, so the day itself counts): no note
  or gate list entry says the planned stage, and the reason names what is missing and any Code Freeze
  exception of the KEP in R with its status as of that day (:func:`known_on`);
- ``missed`` after R's release day, when R's notes and the gate list (final then) hold no landed sign;

and a ``landed`` stage after the release day is ``shipped``. ``slipped`` and ``contradicted`` stay as they
are. Each freeze exception of the KEP in R is added as a sign (source ``release team``, shown, not counted). A
landed stage whose gate the list shows turned off by default in R (a beta or GA gate with ``default: false``)
says so in its reason, as does a note of R that turned its default off (also without the records).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from bot.model.gates import Lifecycle
from bot.model.release_calendar import Calendar, FreezeException
from bot.plan.evidence.gates import Join
from bot.plan.watch.judge import (
    AT_RISK,
    LANDED,
    MISSED,
    NO_SIGN,
    ON_TRACK,
    PLANNED,
    POSSIBLE,
    SHIPPED,
    Sign,
    Watch,
    WatchEntry,
    order,
)

#: The source name of a sign from the release team's records.
RECORDS = "release team"
#: A release note saying a gate was turned off by default (a note that begins ``Disabled the `X` feature gate by default``; a gate added or promoted disabled by default is not one).
TURNED_OFF = re.compile(r"^\W*(disabled|turned off|switched off)\b[^.]*\bby default\b", re.I)


def phase(calendar: Calendar, as_of: str) -> str:
    """Where ``as_of`` (``YYYY-MM-DD``) falls in the cycle: ``before enhancements freeze``, ``before code
    freeze``, ``code freeze`` (from the Code Freeze day to the release day, included) or ``released``; ``""``
    when ``as_of`` or the dates that decide are unknown."""
    if not as_of:
        return ""
    freeze, code, ship = (calendar.day(k) for k in ("enhancements_freeze", "code_freeze", "release_day"))
    if ship and as_of > ship:
        return "released"
    if code and as_of >= code:
        return "code freeze"
    if freeze and as_of < freeze:
        return "before enhancements freeze"
    return "before code freeze" if freeze or code else ""


def _word(stage: str) -> str:
    return "GA" if stage == "stable" else stage


def follow_calendar(
    found: Watch,
    exceptions: Sequence[FreezeException] = (),
    lifecycle: Lifecycle | None = None,
    joins: Mapping[str, Join] | None = None,
) -> Watch:
    """``found`` with the states of the module docstring; unchanged without ``cycle.calendar``.
    ``exceptions``: the freeze exceptions of the release; ``lifecycle`` / ``joins``: the gate list and each
    KEP's gate (:func:`bot.plan.evidence.gates.joins`), for a default turned off."""
    cycle = found.cycle
    if cycle.calendar is None:
        out = [
            e._replace(reason=e.reason + _default_off(e, cycle.release, lifecycle, joins)) if e.state == LANDED else e
            for e in found.entries
        ]
        return found._replace(entries=tuple(out))
    when = phase(cycle.calendar, cycle.as_of)
    by_kep: dict[int, list[FreezeException]] = {}
    for e in known_on(exceptions, cycle.as_of):
        by_kep.setdefault(e.kep, []).append(e)
    out = []
    for entry in found.entries:
        mine = by_kep.get(_number(entry.kep), [])
        signs = entry.signs + tuple(_exception_sign(e) for e in mine)
        state, reason = _state(entry, when, cycle.calendar, mine)
        off = _default_off(entry, cycle.release, lifecycle, joins) if state in (LANDED, SHIPPED) else ""
        out.append(entry._replace(state=state, reason=reason + off, signs=signs))
    out.sort(key=order)
    return found._replace(entries=tuple(out))


def known_on(exceptions: Sequence[FreezeException], as_of: str) -> list[FreezeException]:
    """The freeze exceptions as the release team's records stood on ``as_of`` (``YYYY-MM-DD``; ``""``: every one as
    written): one requested later is left out, and one reviewed later is still a request (no status, no review
    day), so a watch standing on a past day never tells a decision taken after it."""
    if not as_of:
        return list(exceptions)
    return [
        e._replace(status="", reviewed="") if e.reviewed > as_of else e
        for e in exceptions
        if not e.requested or e.requested <= as_of
    ]


def _number(ident: str) -> int:
    digits = ident.split("-", 1)[0]
    return int(digits) if digits.isdigit() else 0


def _exception_sign(e: FreezeException) -> Sign:
    return Sign(RECORDS, "", "", e.reviewed or e.requested, 0, e.thread, e.words())


def _state(entry: WatchEntry, when: str, calendar: Calendar, mine: Sequence[FreezeException]) -> tuple[str, str]:
    """The state and reason of one entry in phase ``when`` (:func:`phase`)."""
    plan = "/".join(_word(s) for s in entry.planned) or "-"
    if entry.state == LANDED and when == "released":
        return SHIPPED, f"{calendar.release} released {calendar.named('release_day')}; {entry.reason}"
    if entry.state not in (ON_TRACK, NO_SIGN):
        return entry.state, entry.reason
    if when == "before enhancements freeze":
        day = calendar.named("enhancements_freeze")
        return PLANNED, f"before the Enhancements Freeze {day}; {entry.reason}"
    if when == "code freeze":
        code = [e for e in mine if e.kind == "codeFreeze"]
        granted = f"; {code[-1].words()}" if code else "; no Code Freeze exception"
        day = calendar.named("code_freeze")
        return AT_RISK, f"Code Freeze {day} reached and no note or gate entry says {plan} yet{granted}"
    if when == "released":
        day = calendar.named("release_day")
        return MISSED, f"{calendar.release} released {day} and its notes and the gate list do not say {plan}"
    return entry.state, entry.reason


def _default_off(entry: WatchEntry, release: str, lifecycle: Lifecycle | None, joins: Mapping[str, Join] | None) -> str:
    """``"; but the R note #N turns its default off"`` when a note of R about the KEP says its gate is disabled
    or off by default (:data:`TURNED_OFF`), else ``"; but the gate list has GATE off by default in R"`` when the
    list shows the KEP's gate at beta or GA in ``release`` with ``default: false``; ``""`` otherwise."""
    for s in entry.signs:
        if s.source == "release note" and s.says != POSSIBLE and TURNED_OFF.search(s.quote):
            return f"; but the {release} note #{s.pr} turns its default off"
    if lifecycle is None or joins is None or entry.kep_path not in joins:
        return ""
    gate_name = joins[entry.kep_path].gate
    found = lifecycle.gate(gate_name) if gate_name else None
    if not found:
        return ""
    spec = found[0].at(release)
    if spec is None or spec.stage not in ("beta", "stable") or spec.default is not False:
        return ""
    return f"; but the gate list has {gate_name} off by default in {release}"


def records_lines(watch: Watch) -> list[str]:
    """The key dates of the release in progress with their source, one line each; ``[]`` without them."""
    c = watch.cycle.calendar
    if c is None:
        return []
    names = (("enhancements_freeze", "Enhancements Freeze"), ("code_freeze", "Code Freeze"), ("release_day", "Release"))
    out = [f"{label}: {c.day(key)}, from {c.where}" for key, label in names if c.day(key)]
    if watch.cycle.as_of:
        when = phase(c, watch.cycle.as_of) or "unknown"
        out.append(f"As of: {watch.cycle.as_of} (UTC), {when}")
    if watch.cycle.data_until:
        out.append(
            f"Data newer than the day: the kep.yaml history reaches {watch.cycle.data_until}, after "
            f"{watch.cycle.as_of}; signs dated after {watch.cycle.as_of} are counted as read"
        )
    return out
