"""When a kep.yaml first declared each of its feature gates, from its history. Pure.

A gate several KEPs declare belongs to the one that declared it first
(:mod:`bot.plan.evidence.ownership`); this module reads that date from the versions of one kep.yaml, oldest
first, as :meth:`bot.sources.history.GitHistory.timelines` gives them (renames and SIG moves followed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import NamedTuple

from bot.model.history.log import NO_BLOB, SHALLOW, Commit, Version
from bot.model.kep import milestone_key, normalize_milestone

#: ``{kep.yaml path: {gate as kep.yaml writes it: Declared}}``: what a history source gives the plan.
GateOrigins = Mapping[str, Mapping[str, "Declared"]]


class Declared(NamedTuple):
    """The first version of a kep.yaml that declared a gate: the commit's ``date`` (UTC, ``YYYY-MM-DDTHH:MM:SSZ``;
    ``""`` when the gate is in the first version a shallow clone has, so the real date is older and unknown),
    its ``commit`` SHA, the pull request ``pr`` its subject names (0 when none), ``planned``: the earliest
    release that version names (``latest-milestone`` and the alpha / beta / stable milestones, ``v1.36``;
    ``""`` when none), what the KEP planned when it took the gate, and ``order``: the commit's place on the
    first-parent line, oldest 0 (``-1`` when unknown; commits of one second keep their order); ``unknown``: why
    ``date`` is ``""`` (:data:`SHALLOW_BOUNDARY`, :data:`UNREADABLE_BEFORE`; ``""`` when it is known)."""

    date: str
    commit: str
    pr: int
    planned: str = ""
    order: int = -1
    unknown: str = ""


#: :attr:`Declared.unknown` of a gate in the first version a shallow clone has.
SHALLOW_BOUNDARY = "shallow"
#: :attr:`Declared.unknown` of a gate first seen after a version of the file that could not be read: that
#: version may have declared it already.
UNREADABLE_BEFORE = "unreadable"


def first_declared(
    timeline: Sequence[tuple[Version, Mapping[str, str] | None]], order: Mapping[str, int] | None = None
) -> dict[str, Declared]:
    """``{gate: Declared}`` for every gate any version of the file declared, the first version naming it.

    ``order``: each commit SHA's place on the first-parent line (oldest 0). ``timeline``: ``(version, tracked
    fields or None)`` oldest first
    (:func:`bot.model.history.fields.kep_fields`: ``feature-gates`` is the gate names joined with ``", "``);
    an unreadable version (``None``, not a deletion) is skipped, and a gate first seen in the version right after one has
    no date (:data:`UNREADABLE_BEFORE`: the unreadable version may have declared it); a gate removed and declared
    again keeps its first date.
    """
    out: dict[str, Declared] = {}
    unreadable = False
    for version, fields in timeline:
        if fields is None:
            unreadable = unreadable or version.blob != NO_BLOB
            continue
        commit = version.commit
        why = SHALLOW_BOUNDARY if commit.parent == SHALLOW else UNREADABLE_BEFORE if unreadable else ""
        planned = earliest(fields.get(f, "") for f in ("latest-milestone", *PLANNED))
        for gate in (g.strip() for g in fields.get("feature-gates", "").split(",")):
            if gate and gate not in out:
                when = "" if why else utc(commit.date)
                out[gate] = Declared(when, commit.sha, commit.pr, planned, (order or {}).get(commit.sha, -1), why)
        unreadable = False
    return out


#: The milestones of a version that say what the KEP planned.
PLANNED = ("milestone.alpha", "milestone.beta", "milestone.stable")


def earliest(values: Iterable[str]) -> str:
    """The earliest release among ``values`` (milestones as written: ``"v1.36"``, ``1.30``; others skipped), as
    ``vMAJOR.MINOR``; ``""`` when none is one."""
    found = [m for m in (normalize_milestone(v) for v in values) if m]
    return min(found, key=lambda m: milestone_key(m) or (0, 0), default="")


def utc(date: str) -> str:
    """An ISO 8601 date with an offset (``2025-02-03T10:00:00+01:00``, as git prints it) in UTC
    (``2025-02-03T09:00:00Z``), so dates compare as strings; ``""`` when it does not parse."""
    try:
        moment = datetime.fromisoformat(date)
    except ValueError:
        return ""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def origins(
    timelines: Mapping[str, Sequence[tuple[Version, Mapping[str, str] | None]]], log: Sequence[Commit] = ()
) -> dict[str, dict[str, Declared]]:
    """:func:`first_declared` of every path of ``timelines`` (``{kep.yaml path: timeline}``); ``log``: the
    first-parent commits, newest first (:meth:`bot.sources.history.GitHistory.log`), for their order."""
    order = {c.sha: i for i, c in enumerate(reversed(log))}
    return {path: first_declared(timeline, order) for path, timeline in timelines.items()}


def former_gates(
    timeline: Sequence[tuple[Version, Mapping[str, str] | None]], current: Iterable[str]
) -> tuple[str, ...]:
    """The gates some version of a kep.yaml declared that ``current`` (its gates now) does not: names it had before
    a rename (5710: ``WorkloadAwarePreemption``, now ``GenericWorkload``), sorted. ``timeline`` as for
    :func:`first_declared`."""
    now = set(current)
    return tuple(sorted(set(first_declared(timeline)) - now))
