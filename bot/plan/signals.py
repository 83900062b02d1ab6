"""The signals a reviewer reads first: who owns a shared feature gate, and the state of each planned stage.

Pure: the snapshot, the gate lifecycle, the release-notes index and the kep.yaml history's first declarations
in; values out. :func:`bot.plan.planner.plan_sync` calls these when release notes or a gate list are given;
the changelog shows them (:mod:`bot.plan.changelog.signals`) and the report carries them
(``planned_stages``, ``gate_ownership``).

- :func:`gate_ownership`: the owner of each gate the pages' KEPs share with others
  (:mod:`bot.plan.evidence.ownership`), once by the names kep.yaml writes (for the release notes) and once by
  the names the gate lists hold (a typo counts as the listed gate);
- :func:`planned_stages`: every planned stage of the KEPs in scope, as a
  :class:`bot.plan.evidence.stage_state.PlannedStage`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import NamedTuple

from bot.model.consistency import release_in_progress
from bot.model.gates import Lifecycle, release_key
from bot.model.history.declared import GateOrigins
from bot.model.kep import STAGES, Kep, normalize_milestone
from bot.model.note_text import default_off, release_order
from bot.model.snapshot import Snapshot
from bot.plan.diff import RELEASED_FLAG, Change
from bot.plan.evidence import gates as gates_mod
from bot.plan.evidence.index import NotesIndex, change_stage
from bot.plan.evidence.ownership import Ownership, decide, shared_gates
from bot.plan.evidence.review import about_kep, agrees
from bot.plan.evidence.stage_state import (
    CONFIRMS,
    CONTRADICTED,
    COUNTER,
    ELSEWHERE,
    POSSIBLE,
    TURNED_OFF,
    NoteRef,
    NotesView,
    PlannedStage,
    assess,
)

#: A loader of the kep.yaml history's first declarations: kep.yaml paths in, :data:`GateOrigins` out.
OriginsLoader = Callable[[Collection[str]], GateOrigins]


class Owners(NamedTuple):
    """The owners of shared gates: ``notes`` by the names kep.yaml writes, ``listed`` by the names the gate lists
    hold (empty without a gate list)."""

    notes: Mapping[str, Ownership]
    listed: Mapping[str, Ownership]

    def report(self, ids: Mapping[str, str]) -> list[dict[str, object]]:
        """The report's ``gate_ownership`` list: every shared gate once, by name."""
        seen = {**self.listed, **self.notes}
        return [seen[g].as_report(ids) for g in sorted(seen)]


def gate_ownership(
    snapshot: Snapshot,
    page_keps: Iterable[Kep],
    origins: GateOrigins | OriginsLoader,
    lifecycle: Lifecycle | None,
) -> Owners:
    """:class:`Owners` of the gates the ``page_keps`` declare that other KEPs declare too. ``origins``: the first
    declaration of each gate per kep.yaml, or a loader called once with the paths of every declarer."""
    keps = snapshot.all_keps()
    page = list(page_keps)
    by_notes = shared_gates(keps, page)
    names = lifecycle.names() if lifecycle is not None else frozenset()
    listed_name = functools.partial(_as_listed, names=names)
    by_list = shared_gates(keps, page, listed_name) if lifecycle is not None else {}
    paths = sorted({p for found in (by_notes, by_list) for declarers in found.values() for p in declarers})
    known = origins(paths) if callable(origins) else origins
    return Owners(decide(snapshot, by_notes, known), decide(snapshot, by_list, known, listed_name))


def _as_listed(gate: str, names: frozenset[str]) -> str:
    return gates_mod.listed_name(gate, names) or gate


class NotesRead(NamedTuple):
    """The release notes a plan read: the ``notes_index`` and every release the source has (``available``)."""

    notes_index: NotesIndex
    available: tuple[str, ...]


def planned_stages(
    snapshot: Snapshot,
    keps: Sequence[Kep],
    ids: Mapping[str, str],
    *,
    lifecycle: Lifecycle | None,
    joins: Mapping[str, gates_mod.Join],
    notes: NotesRead | None,
    changes: Sequence[Change] = (),
) -> list[PlannedStage]:
    """The :class:`PlannedStage` of each stage ``keps`` plan (a valid milestone for alpha, beta or stable).

    A release is closed when it is older than the release in progress
    (:func:`bot.model.consistency.release_in_progress` over the snapshot), the gate lists have closed it
    (:func:`bot.plan.evidence.gates.closed`) and, with release notes, it is older than their newest release
    (a draft). ``joins``: :func:`bot.plan.evidence.gates.joins` of ``keps``; ``changes``: the plan's changes,
    whose evidence in prose (:mod:`bot.plan.evidence.prose`: a note naming the KEP by its title confirms, one
    matched by title words is possible) the state names.
    """
    current = release_in_progress(snapshot.all_keps())
    drafts = max((release_order(r) for r in notes.available), default=(0, 0)) if notes is not None else None
    possible: dict[tuple[str, str], list[NoteRef]] = {}
    by_path = {k.path: k for k in keps}
    for c in changes:
        kep = by_path.get(c.kep_path)
        if kep is None:
            continue
        indexed = {m.pr for m in notes.notes_index.for_kep(kep.path)} if notes is not None else set()
        for e in c.evidence:
            named = not (e.possible or e.ambiguous or e.counter or e.pr in indexed)  # a note naming it by title
            if e.possible or named:
                refs = possible.setdefault((c.kep_path, change_stage(c, kep)), [])
                if all(r.pr != e.pr for r in refs):
                    refs.append(NoteRef(e.release, e.pr, e.url, CONFIRMS if named else POSSIBLE))
    out = []
    for kep in keps:
        for stage in STAGES:
            release = normalize_milestone(kep.milestone(stage))
            if not release:
                continue
            key = release_key(release)
            why_open = ""
            if current is not None and key >= current:
                now = f"v{current[0]}.{current[1]}"
                why_open = f"{release} is the release in progress" if key == current else f"{release} is after {now}"
            elif lifecycle is not None and not gates_mod.closed(lifecycle, release):
                why_open = f"{release} is not closed by the gate list (newest {lifecycle.newest or '-'})"
            elif notes is not None and drafts is not None and key >= drafts:
                why_open = _no_final_notes(release, key == drafts, notes.available)
            gate = gates_mod.stage_verdict(kep, stage, joins[kep.path], lifecycle) if lifecycle is not None else None
            view = None
            if notes is not None:
                view = _notes_view(notes, kep, stage, release)
                view = view._replace(notes=view.notes + tuple(possible.get((kep.path, stage), ())))
            ident = ids.get(kep.path, str(kep.number))
            out.append(
                assess(ident, kep.path, stage, release, closed=not why_open, why_open=why_open, gate=gate, notes=view)
            )
    return out


def _no_final_notes(release: str, newest: bool, available: Sequence[str]) -> str:
    """Why the release notes cannot close ``release``: its notes are the newest read (a draft), or the notes read
    end before it (``available``: every release the source has)."""
    if newest:
        return f"the {release} release notes are a draft"
    last = max(available, key=release_order, default="")
    return f"the release notes read end at {last}; no release notes for {release}" if last else "no release notes read"


def _notes_view(notes: NotesRead, kep: Kep, stage: str, release: str) -> NotesView:
    """What the notes surely about ``kep`` say of ``stage`` in ``release`` (one note per pull request and role)."""
    refs: dict[tuple[int, str], NoteRef] = {}
    for m in notes.notes_index.for_kep(kep.path):
        if kep.path not in m.links:
            continue  # an ambiguous link never confirms nor contradicts
        ref = None
        if m.stage == stage and m.when == release:
            ref = NoteRef(m.release, m.pr, m.url, CONFIRMS)
        elif m.when == release and m.stage in STAGES:
            ref = NoteRef(m.release, m.pr, m.url, COUNTER, m.stage)
        elif m.stage == stage and about_kep(m, kep) and not agrees(m, kep):
            ref = NoteRef(m.release, m.pr, m.url, ELSEWHERE, f"{'reached in' if m.exact else 'reached by'} {m.when}")
        elif m.release == release and stage != "alpha" and m.gates and default_off(m.excerpt):
            ref = NoteRef(m.release, m.pr, m.url, TURNED_OFF, excerpt=m.excerpt)
        if ref is not None:
            refs.setdefault((ref.pr, ref.role), ref)
    return NotesView(tuple(refs.values()), release in notes.notes_index.releases)


def slips(
    changes: Sequence[Change],
    keps: Mapping[str, Kep],
    states: Sequence[PlannedStage],
    lifecycle: Lifecycle | None,
    joins: Mapping[str, gates_mod.Join],
) -> dict[tuple[str, str], str]:
    """``{(kep_path, stage): why}`` for each released milestone rewritten (a change flagged
    :data:`bot.plan.diff.RELEASED_FLAG`) that a source proves a slip: the gate that speaks for the KEP had not
    reached the stage by the old release, a closed one (``the gate list shows KubeletInUserNamespace alpha in
    v1.35``, :func:`bot.plan.evidence.gates.verdict`), no list closing it holds any gate the KEP declares while
    kep.yaml now plans its alpha later (KEP 4563: no EvictionRequestAPI by v1.36, alpha now v1.37), or a note surely about the KEP announces the stage in a
    later release (``the v1.37 note #134639 announces it``). A rewrite no source proves is left out."""
    out: dict[tuple[str, str], str] = {}
    planned = {(s.kep_path, s.stage): s for s in states}
    for c in changes:
        old = normalize_milestone(c.old) or ""
        if not (c.applied and c.field in STAGES and old and any(f.startswith(RELEASED_FLAG) for f in c.flags)):
            continue
        why = ""
        j = joins.get(c.kep_path)
        if lifecycle is not None and j is not None and j.gate and gates_mod.closed(lifecycle, old):
            found = gates_mod.verdict(j.gate, c.field, old, lifecycle, j.since)
            listed = lifecycle.gate(j.gate, old)
            reached = [r for r, _ in gates_mod.readings(listed[0], c.field)[:1]] if listed else []
            if found.state == CONTRADICTED and all(release_key(r) > release_key(old) for r in reached):
                why = f"the gate list shows {found.reason}"
        kep = keps.get(c.kep_path)
        alpha = normalize_milestone(kep.milestone("alpha")) if kep is not None else ""
        if (
            not why
            and lifecycle is not None
            and j is not None
            and j.declared
            and not j.listed
            and gates_mod.closed(lifecycle, old)
            and alpha
            and release_key(alpha) > release_key(old)
        ):  # no gate of it in any list closing ``old``, and kep.yaml now plans its alpha after ``old``
            why = f"the gate list has no {' or '.join(j.declared)} by {old}; kep.yaml now plans alpha in {alpha}"
        state = planned.get((c.kep_path, c.field))
        notes = state.notes if state is not None else ()
        later = [n for n in notes if n.role == CONFIRMS and release_key(n.release) > release_key(old)]
        if not why and later and c.kep_path in keps:
            why = f"the {later[0].release} note #{later[0].pr} announces it"
        if why:
            out[(c.kep_path, c.field)] = why
    return out


def touched(changes: Sequence[Change], keps: Mapping[str, Kep]) -> set[tuple[str, str]]:
    """``(kep_path, stage)`` of each planned stage an applied change is about
    (:func:`bot.plan.evidence.index.change_stage`: its milestone, its new stage, GA for ``implemented``)."""
    return {(c.kep_path, change_stage(c, keps[c.kep_path])) for c in changes if c.applied and c.kep_path in keps}


def unchanged_contradicted(
    states: Sequence[PlannedStage], changes: Sequence[Change], keps: Mapping[str, Kep]
) -> dict[str, set[str]]:
    """``{kep_path: {"milestone.beta", ...}}``: the milestones of the contradicted planned stages no applied
    change is about (:func:`touched`; their provenance says who moved them upstream)."""
    written = touched(changes, keps)
    out: dict[str, set[str]] = {}
    for s in states:
        if s.state == CONTRADICTED and (s.kep_path, s.stage) not in written:
            out.setdefault(s.kep_path, set()).add(f"milestone.{s.stage}")
    return out
