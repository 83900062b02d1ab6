"""Provenance: the upstream commit in which a changed field took the value the row now gets. Pure.

The answer is the newest first-parent commit that *changed* the field to its
current value (not merely the last commit touching the file): walking the
file's versions from the newest back, the oldest version of the unbroken run
that still holds the current value. Renames of the KEP directory are followed
(:func:`bot.model.history.log.versions`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, NotRequired, TypedDict

from bot.model.history.fields import CHANGE_FIELDS
from bot.model.history.log import NO_BLOB, SHALLOW, Commit, Version
from bot.model.kep import Problem

#: A :class:`bot.plan.diff.Change` (not imported: bot.plan.diff imports this module).
Change = Any


class Upstream(NamedTuple):
    """Where a value came from: ``commit`` SHA, committer ``date`` (ISO 8601), ``pr`` number (0 when the
    subject names none) and the commit ``subject``. ``exact`` is False when only the last commit touching
    the kep.yaml is known (``github:`` sources), not the one that changed the field."""

    commit: str
    date: str
    pr: int
    subject: str
    exact: bool = True
    before: str | None = None

    def as_json(self) -> dict[str, object]:
        """``{"commit", "date", "pr", "subject"}`` plus ``"exact": false`` when approximate."""
        out: dict[str, object] = {"commit": self.commit, "date": self.date, "pr": self.pr, "subject": self.subject}
        if not self.exact:
            out["exact"] = False
        return out


def upstream_of(commit: Commit, exact: bool = True) -> Upstream:
    """The :class:`Upstream` record of a log :class:`~bot.model.history.log.Commit`."""
    return Upstream(commit.sha, commit.date, commit.pr, commit.subject, exact)


def field_origin(timeline: Sequence[tuple[Version, Mapping[str, str] | None]], field: str) -> Commit | None:
    """The commit in which ``field`` (a :data:`bot.model.history.fields.TRACKED` name) took its value at the newest
    version.

    ``timeline``: ``(version, tracked fields or None when unusable)`` oldest
    first (:meth:`bot.sources.history.GitHistory.timelines`). An unusable or
    deleted version in between ends the search at the version after it
    (nothing older can be trusted to hold the same value). ``None`` when the
    timeline is empty or its newest version is deleted or unusable, and when
    the search ends at a shallow clone's boundary commit (:data:`~bot.model.history.log.SHALLOW`:
    the value may be older than the clone's history).
    """
    if not timeline or timeline[-1][0].blob == NO_BLOB or timeline[-1][1] is None:
        return None
    current = timeline[-1][1].get(field, "")
    origin = timeline[-1][0].commit
    for version, fields in reversed(timeline[:-1]):
        if version.blob == NO_BLOB or fields is None or fields.get(field, "") != current:
            break
        origin = version.commit
    return None if origin.parent == SHALLOW else origin


def with_provenance(
    changes: Sequence[Change],
    timelines: Mapping[str, Sequence[tuple[Version, Mapping[str, str] | None]]],
    current: Mapping[str, Mapping[str, str]] | None = None,
) -> list[Change]:
    """``changes`` with ``upstream`` set from the kep.yaml ``timelines`` (``{kep_path: timeline}``).

    A change whose kep.yaml has no timeline (missing upstream, a file with no
    history) or whose field is not tracked keeps ``upstream=None``; so does one
    whose value in ``current`` (``{kep_path: tracked fields}`` of the snapshot
    the changes came from) differs from the newest committed version (an edit
    not committed in a checkout: no commit set that value).
    """
    out = []
    for c in changes:
        field = CHANGE_FIELDS.get(c.field, "")
        timeline = timelines.get(c.kep_path, ()) if field and c.kep_path else ()
        origin = field_origin(timeline, field) if timeline else None
        if (
            origin is not None
            and current is not None
            and c.kep_path in current
            and current[c.kep_path].get(field, "") != (timeline[-1][1] or {}).get(field, "")
        ):
            origin = None
        out.append(
            c._replace(upstream=upstream_of(origin)._replace(before=value_before(timeline, field, origin)))
            if origin is not None
            else c
        )
    return out


def value_before(
    timeline: Sequence[tuple[Version, Mapping[str, str] | None]], field: str, origin: Commit
) -> str | None:
    """``field``'s value in the readable version just before ``origin`` (``""`` when the file did not
    exist), ``None`` when that version is unreadable."""
    previous = None
    for version, fields in timeline:
        if version.commit.sha == origin.sha:
            if previous is None:
                return ""
            return None if previous[1] is None else previous[1].get(field, "")
        previous = (version, fields)
    return None


def with_last_commits(changes: Sequence[Change], last: Mapping[str, Upstream]) -> list[Change]:
    """``changes`` with ``upstream`` set to the last commit touching each kep.yaml (``{kep_path: Upstream}``,
    inexact), for sources whose history is read one request per file (``github:``)."""
    return [c._replace(upstream=last[c.kep_path]) if c.kep_path in last else c for c in changes]


def coverage(changes: Sequence[Change]) -> tuple[int, int]:
    """``(changes the plan applies that carry upstream, changes the plan applies)``."""
    applied = [c for c in changes if c.applied]
    return sum(c.upstream is not None for c in applied), len(applied)


def change_field(field: str) -> str:
    """The tracked field for a report field (``alpha`` -> ``milestone.alpha``); ``""`` for an unknown one."""
    return CHANGE_FIELDS.get(field, "")


class History(NamedTuple):
    """What a source could tell about the history of the changed kep.yaml files, for :func:`attach`.

    ``kind``: ``git`` (``timelines`` per kep.yaml path, exact), ``github``
    (``last``: the newest commit touching each path, inexact) or ``none``;
    ``requests``: HTTP requests it took (``github``); ``shallow``: the boundary
    commit SHAs when the git source is a shallow clone (else empty).
    """

    kind: str
    timelines: Mapping[str, Sequence[tuple[Version, Mapping[str, str] | None]]] = {}
    last: Mapping[str, Commit] = {}
    requests: int = 0
    shallow: tuple[str, ...] = ()


class Provenance(TypedDict):
    """The report's provenance block: the history ``source`` kind, HTTP ``requests`` it took, changes the
    plan applies (``proposed``) and those carrying upstream (``with_upstream``); ``shallow``: the boundary
    commit SHAs of a shallow clone (absent otherwise)."""

    source: str
    requests: int
    proposed: int
    with_upstream: int
    shallow: NotRequired[list[str]]


def attach(
    changes: Sequence[Change], history: History, current: Mapping[str, Mapping[str, str]] | None = None
) -> tuple[list[Change], Provenance]:
    """``(changes with upstream set, the report's provenance block)``; ``current``: see :func:`with_provenance`.

    The block: ``{"source": kind, "requests": n, "proposed": changes the plan applies
    (``Change.applied``; the report calls them ``proposed``), "with_upstream": those that carry upstream}``,
    plus ``"shallow": [boundary SHAs]`` for a shallow clone.
    """
    if history.kind == "git":
        out = with_provenance(changes, history.timelines, current)
    elif history.kind == "github":
        out = with_last_commits(changes, {p: upstream_of(c, exact=False) for p, c in history.last.items()})
    else:
        out = list(changes)
    found, applied = coverage(out)
    block: Provenance = {
        "source": history.kind,
        "requests": history.requests,
        "proposed": applied,
        "with_upstream": found,
    }
    if history.shallow:
        block["shallow"] = list(history.shallow)
    return out, block


def shallow_problem(shallow: Sequence[str]) -> Problem:
    """The notice for a shallow clone: provenance stops at its boundary ``shallow`` (commit SHAs)."""
    return Problem(
        "--enhancements",
        "",
        f"the source is a shallow clone: history before commit "
        f"{', '.join(s[:12] for s in shallow)} is not available, so a value that may be older carries "
        "no upstream and `history` marks the boundary; fetch the full history (git fetch --unshallow)",
    )
