"""The reviews of a plan's changes, each when its input is given: release notes (evidence, discrepancies), the
feature-gate lifecycle (Shipped marks, gate findings), gate ownership from the kep.yaml history, the state of
each planned stage (:mod:`bot.plan.signals`) and the upstream history (provenance); and the JSON report built
from them. Pure, except for the loaders :func:`bot.plan.planner.plan_sync` passes in.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import NamedTuple

from bot.model.finding import GATE_KEYS, Finding
from bot.model.gates import Lifecycle
from bot.model.history.declared import GateOrigins
from bot.model.history.fields import kep_fields
from bot.model.history.provenance import (
    History,
    Provenance,
    Upstream,
    attach,
    change_field,
    field_origin,
    shallow_problem,
    upstream_of,
    value_before,
)
from bot.model.kep import Kep, Problem
from bot.model.notes import ReleaseNotes, with_missing
from bot.model.snapshot import Snapshot
from bot.plan import signals
from bot.plan.changelog import body as changelog_mod
from bot.plan.diff import Change, kep_id
from bot.plan.evidence import gates as gates_mod
from bot.plan.evidence import releases_needed
from bot.plan.evidence import review as review_notes
from bot.plan.evidence.ownership import Ownership, owners_with
from bot.plan.evidence.settled import settle
from bot.plan.evidence.stage_state import PlannedStage
from bot.plan.settings import PlanSettings

#: ``plan_sync``'s ``release_notes``: notes already read, or a loader of the releases wanted.
NotesInput = ReleaseNotes | Callable[[Collection[str]], ReleaseNotes]
#: ``plan_sync``'s ``history``: the upstream history, or a loader of it.
HistoryInput = History | Callable[[Mapping[str, Collection[str]], Collection[str]], History]


class Scope(NamedTuple):
    """What every step of :func:`bot.plan.planner.plan_sync` reads: the ``config``, the ``snapshot``, the KEP
    numbers to consider (``only``, ``None`` for all) and the feature-gate ``lifecycle`` (``None`` without one)."""

    config: PlanSettings
    snapshot: Snapshot
    only: Collection[int] | None
    lifecycle: Lifecycle | None


class Reviewed(NamedTuple):
    """The ``changes`` and ``problems`` after the reviews, the release-note discrepancies (``found``, ``None``
    without release notes), the gate findings (``gate_found``, ``None`` without a gate lifecycle), the
    report's ``provenance`` block (``origin``, ``None`` without history), the ``states`` of the planned stages
    (``None`` without release notes and gate list), the shared gates' ``owners`` (``None`` without the
    kep.yaml history's first declarations) and the ``(kep_path, release)`` of the ``not-in-notes`` findings the
    gate list ``settled`` (:mod:`bot.plan.evidence.settled`); ``slips``: the released milestones rewritten a
    source proves slipped (:func:`bot.plan.signals.slips`); ``moves``: ``{(kep_path, stage): Upstream}``, the
    upstream commit that set each contradicted milestone no change writes (from the history, git only)."""

    changes: list[Change]
    problems: list[Problem]
    found: list[Finding] | None
    gate_found: list[Finding] | None
    origin: Provenance | None
    states: list[PlannedStage] | None = None
    owners: signals.Owners | None = None
    settled: frozenset[tuple[str, str]] = frozenset()
    slips: Mapping[tuple[str, str], str] = {}
    moves: Mapping[tuple[str, str], Upstream] = {}


class Diffed(NamedTuple):
    """What the diff gives the reviews: the KEPs of the pages' rows (``page_keps``, by kep.yaml path), the
    ``changes``, the ``problems`` and the KEP ``numbers`` the rows name (rows left as is included)."""

    page_keps: Mapping[str, Kep]
    changes: list[Change]
    problems: list[Problem]
    numbers: set[int]


def review(
    scope: Scope,
    diffed: Diffed,
    release_notes: NotesInput | None,
    history: HistoryInput | None,
    review_rows: bool,
    gate_history: GateOrigins | signals.OriginsLoader | None = None,
) -> Reviewed:
    """The reviews of the diffed changes (see the module docstring), with the problems of ``--kep`` numbers and
    ``ignore`` rules naming a KEP in no row. ``gate_history``: the kep.yaml history's first declaration of each
    gate, or a loader called once with the paths of the KEPs declaring a gate the pages' KEPs share; used with
    release notes or a gate list only."""
    changes, problems, only = diffed.changes, diffed.problems, scope.only
    if only is not None:
        problems += [
            Problem("--kep", "", f"KEP {n} is in no matrix row of the pages; nothing to do for it")
            for n in sorted(set(only) - diffed.numbers)
        ]
    problems += [
        Problem("config", f"ignore[{i}]", f"KEP {rule.kep} is in no matrix row of the pages; the rule ignores nothing")
        for i, rule in enumerate(scope.config.ignore)
        if rule.kep not in diffed.numbers
    ]
    signalled = release_notes is not None or scope.lifecycle is not None
    owners = None
    if signalled and gate_history is not None:
        owners = signals.gate_ownership(scope.snapshot, diffed.page_keps.values(), gate_history, scope.lifecycle)
    found: list[Finding] | None = None
    read: signals.NotesRead | None = None
    if release_notes is not None:
        changes, found, notes_problems, read = _review_release_notes(
            scope, diffed.page_keps, changes, release_notes, review_rows, owners
        )
        problems += notes_problems
    gate_found: list[Finding] | None = None
    joins: Mapping[str, gates_mod.Join] = {}
    if scope.lifecycle is not None:
        changes, gate_found, joins = _review_gates(
            scope, diffed.page_keps, changes, review_rows, owners.listed if owners is not None else None
        )
        problems += scope.lifecycle.problems
    states, settled = None, frozenset[tuple[str, str]]()
    slipped: Mapping[tuple[str, str], str] = {}
    if signalled:
        keps = _in_scope(scope, diffed.page_keps, changes, review_rows)
        states = signals.planned_stages(
            scope.snapshot,
            keps,
            {k.path: kep_id(scope.snapshot, k) for k in keps},
            lifecycle=scope.lifecycle,
            joins=joins,
            notes=read,
            changes=changes,
        )
        if found is not None and scope.lifecycle is not None:
            found, settled = settle(found, {k.path: k for k in keps}, joins, scope.lifecycle)
        slipped = signals.slips(changes, diffed.page_keps, states, scope.lifecycle, joins)
    origin: Provenance | None = None
    moves: dict[tuple[str, str], Upstream] = {}
    if history is not None:
        extra = signals.unchanged_contradicted(states or (), changes, diffed.page_keps)
        changes, origin, moves = _provenance(scope.snapshot, changes, history, extra)
        if origin.get("shallow"):
            problems = problems + [shallow_problem(origin["shallow"])]
    return Reviewed(changes, problems, found, gate_found, origin, states, owners, settled, slipped, moves)


def _in_scope(scope: Scope, on_pages: Mapping[str, Kep], changes: Sequence[Change], review_rows: bool) -> list[Kep]:
    """The KEPs a review speaks about: every row's (``review_rows``, the audit) or the changed ones."""
    if review_rows:
        return [k for k in on_pages.values() if scope.only is None or k.number in scope.only]
    return [on_pages[p] for p in dict.fromkeys(c.kep_path for c in changes if c.applied) if p in on_pages]


def report(scope: Scope, reviewed: Reviewed) -> dict[str, object]:
    """The JSON report of the plan before the tracking keys: changes, every problem (the snapshot's too),
    discrepancies, provenance; with a gate lifecycle, its ``gate_lifecycle`` block; with release notes or a gate
    list, ``planned_stages`` (:meth:`bot.plan.evidence.stage_state.PlannedStage.as_report`) and, with the
    kep.yaml history, ``gate_ownership`` (:meth:`bot.plan.evidence.ownership.Ownership.as_report`)."""
    snapshot = scope.snapshot
    out = changelog_mod.report(
        snapshot,
        reviewed.changes,
        reviewed.problems + snapshot.all_problems(),
        discrepancies=reviewed.found,
        provenance=reviewed.origin,
    )
    if scope.lifecycle is not None:
        out["gate_lifecycle"] = gate_report(scope.lifecycle, reviewed.gate_found or [])
    if reviewed.states is not None:
        out["planned_stages"] = [s.as_report() for s in reviewed.states]
    if reviewed.owners is not None:
        out["gate_ownership"] = reviewed.owners.report({k.path: kep_id(snapshot, k) for k in snapshot.all_keps()})
    return out


def _review_release_notes(
    scope: Scope,
    on_pages: Mapping[str, Kep],
    changes: list[Change],
    release_notes: NotesInput,
    review_rows: bool,
    owners: signals.Owners | None,
) -> tuple[list[Change], list[Finding], list[Problem], signals.NotesRead]:
    """``changes`` with their release-note evidence, the discrepancies, the problems of reading the notes and
    what was read.

    The check is about what this run proposes: the KEPs of applied changes, not every row (the audit,
    ``review_rows``: every row's KEP). ``release_notes`` is called once with the releases needed. With
    ``owners``, a shared gate's notes go to its owner alone."""
    snapshot, only = scope.snapshot, scope.only
    if review_rows:
        proposed = {p: k for p, k in on_pages.items() if only is None or k.number in only}
    else:
        proposed = {c.kep_path: on_pages[c.kep_path] for c in changes if c.applied and c.kep_path in on_pages}
    needed = releases_needed(proposed.values())
    notes = with_missing(release_notes(needed) if callable(release_notes) else release_notes, needed)
    all_keps = snapshot.all_keps()
    reviewed = review_notes(
        changes,
        list(proposed.values()),
        all_keps,
        notes.notes,
        notes.available,
        ids={p: kep_id(snapshot, k) for p, k in proposed.items()},
        scope=scope.config.release_notes.review,
        page_keps=list(on_pages.values()),
        owners=owners_with(all_keps, owners.notes) if owners is not None else None,
    )
    assert reviewed.notes_index is not None
    read = signals.NotesRead(reviewed.notes_index, tuple(notes.available))
    return reviewed.changes, reviewed.discrepancies, list(notes.problems), read


def _provenance(
    snapshot: Snapshot, changes: list[Change], history: HistoryInput, extra: Mapping[str, set[str]]
) -> tuple[list[Change], Provenance, dict[tuple[str, str], Upstream]]:
    """``changes`` with the upstream commit behind each new value, the report's ``provenance`` block and the
    commit that set each of ``extra``'s fields (``{kep.yaml path: {"milestone.beta"}}``: values no change
    writes), by ``(kep_path, stage)``, from a git history only (exact). ``history`` is called once with
    ``{kep.yaml path: tracked fields}`` and the paths of the proposed changes."""
    wanted: dict[str, set[str]] = {path: set(fields) for path, fields in extra.items()}
    for c in changes:
        if c.kep_path and change_field(c.field):
            wanted.setdefault(c.kep_path, set()).add(change_field(c.field))
    current = {k.path: kep_fields(k) for k in snapshot.all_keps() if k.path in wanted}
    proposed = frozenset(c.kep_path for c in changes if c.applied and c.kep_path)
    read = history(wanted, proposed) if callable(history) else history
    out, block = attach(changes, read, current)
    moves: dict[tuple[str, str], Upstream] = {}
    for path, fields in extra.items() if read.kind == "git" else ():
        timeline = read.timelines.get(path, ())
        for field in fields:
            origin = field_origin(timeline, field) if timeline else None
            if origin is not None and current.get(path, {}).get(field, "") == (timeline[-1][1] or {}).get(field, ""):
                moves[(path, field.removeprefix("milestone."))] = upstream_of(origin)._replace(
                    before=value_before(timeline, field, origin)
                )
    return out, block, moves


def _review_gates(
    scope: Scope,
    on_pages: Mapping[str, Kep],
    changes: list[Change],
    review_rows: bool,
    ownership: Mapping[str, Ownership] | None,
) -> tuple[list[Change], list[Finding], dict[str, gates_mod.Join]]:
    """``changes`` with their Shipped marks, the gate findings of the KEPs of every row (``review_rows``) or of
    the changed ones, and how each page KEP meets the lists (:func:`bot.plan.evidence.gates.joins`)."""
    snapshot, lifecycle = scope.snapshot, scope.lifecycle
    assert lifecycle is not None
    js = gates_mod.joins(on_pages.values(), snapshot.all_keps(), lifecycle, ownership)
    keps = _in_scope(scope, on_pages, changes, review_rows)
    found = gates_mod.findings(keps, js, lifecycle, {k.path: kep_id(snapshot, k) for k in keps})
    return gates_mod.attach_marks(changes, on_pages, js, lifecycle), found, js


def gate_report(lifecycle: Lifecycle, found: list[Finding]) -> dict[str, object]:
    """The report's ``gate_lifecycle`` object: ``source``, ``lists`` read (``where``, ``release``, ``newest``,
    ``revision``), ``shipped`` releases and the ``findings`` (``kind``, ``kep``, ``kep_path``, ``release``,
    ``message``)."""
    return {
        "source": lifecycle.source,
        "lists": [
            {"where": gl.where, "release": gl.release, "newest": gl.newest, "revision": gl.revision}
            for gl in lifecycle.lists
        ],
        "findings": [d.as_report(GATE_KEYS) for d in found],
    }
