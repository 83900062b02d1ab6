"""The state of a planned stage: what the gate list and the release notes say about a stage kep.yaml plans.

Pure. A *planned stage* is one stage (``alpha``, ``beta``, ``stable``) with the release kep.yaml names for it
(``milestone.beta: v1.37``). Its :class:`PlannedStage` has one of four states (:data:`STATES`), a one-line
``reason`` and the ``source`` that decided it:

- :data:`CONFIRMED`: it shipped as planned. The gate that speaks for the KEP reached the stage in that release
  in the gate list (or a reading of the list does: a beta turned on by default in that release, said in the
  reason), or, without such a gate, a release note of that release surely about the KEP announces it;
- :data:`PENDING`: the release is not closed: it is the release in progress (the newest ``latest-milestone``
  most KEPs name, :func:`bot.model.consistency.release_in_progress`) or later, or the gate list and the release
  notes have not closed it (the list's newest version, the notes' newest draft). Notes that already announce
  the stage, a default turned off before release and possible evidence are said in the reason. Never a warning:
  a release in progress cannot contradict a plan, only its notes can;
- :data:`CONTRADICTED`: a source says otherwise: the gate list shows the stage reached in another (closed)
  release, or not reached by a closed release; or a note of that release surely about the KEP announces
  another stage and none announces this one (KEP 5732: kep.yaml beta v1.37, the 1.37 note #138274 calls its
  gate alpha); or, without a gate, a note says the stage was reached in another release;
- :data:`UNKNOWN`: nothing decides: no gate of its own in the list (shared, borrowed, several, none), a gate
  born at a later stage or GA before the versioned list, and no release note of that release names the KEP.

:func:`assess` combines a gate verdict (:func:`bot.plan.evidence.gates.verdict`) and what the notes say
(:class:`NotesView`). The report carries each as :meth:`PlannedStage.as_report`; the changelog's Shipped column
and "Needs a look" read them; a release watch (the release in progress: landed, on track, no sign yet, slipped)
can refine :data:`PENDING` from the same values.
"""

from __future__ import annotations

from typing import NamedTuple

#: The stage shipped in the release kep.yaml names (per the gate list, else the release notes).
CONFIRMED = "confirmed"
#: The release is not closed (in progress, later, or not closed by the gate list / the notes).
PENDING = "pending"
#: The gate list or a note of that release says otherwise.
CONTRADICTED = "contradicted"
#: Nothing decides.
UNKNOWN = "unknown"
#: Every state, in the order a reader wants them: what needs a look first.
STATES = (CONTRADICTED, PENDING, UNKNOWN, CONFIRMED)
#: Where a state came from (:attr:`PlannedStage.source`).
GATE_LIST, RELEASE_NOTES, RELEASE = "gate list", "release notes", "release"


class Verdict(NamedTuple):
    """What one source says about a planned stage: its ``state`` (``""``: nothing to say) and ``reason``."""

    state: str
    reason: str


#: A source with nothing to say.
SILENT = Verdict("", "")


#: What a note does for a planned stage (:attr:`NoteRef.role`).
CONFIRMS, COUNTER, ELSEWHERE, POSSIBLE, TURNED_OFF = "confirms", "counter", "elsewhere", "possible", "turned-off"


class NoteRef(NamedTuple):
    """A release note behind a state: its ``release``, pull request ``pr`` and ``url``, its ``role``
    (:data:`CONFIRMS`: of that release, surely about the KEP, announcing the stage; :data:`COUNTER`: the same but
    announcing another stage; :data:`ELSEWHERE`: announcing the stage in another release; :data:`POSSIBLE`:
    matched by title words only, :mod:`bot.plan.evidence.prose`; :data:`TURNED_OFF`: turning the KEP's gate off
    by default in that release), ``said``: the stage a counter note announces, or ``"reached by v1.33"``, and the
    note's own sentence (``excerpt``, untrusted text: render it inert; not in :meth:`PlannedStage.as_report`)."""

    release: str
    pr: int
    url: str
    role: str
    said: str = ""
    excerpt: str = ""


class NotesView(NamedTuple):
    """What the release notes say about one planned stage: the ``notes`` behind it (:class:`NoteRef`) and
    whether the release's notes were ``read`` (False: the source lacks them)."""

    notes: tuple[NoteRef, ...] = ()
    read: bool = False

    def having(self, role: str) -> tuple[NoteRef, ...]:
        """The notes of one ``role``."""
        return tuple(n for n in self.notes if n.role == role)


class PlannedStage(NamedTuple):
    """One planned stage of one KEP: ``kep`` (id), ``kep_path``, ``stage``, ``release`` (``vMAJOR.MINOR``
    kep.yaml names), ``state`` (:data:`STATES`), ``reason`` (one line, quoting releases and pull requests),
    ``source`` (:data:`GATE_LIST`, :data:`RELEASE_NOTES`, both joined by ``", "``, or :data:`RELEASE` when the
    release alone decides) and ``notes`` (:class:`NoteRef` of the notes it names)."""

    kep: str
    kep_path: str
    stage: str
    release: str
    state: str
    reason: str
    source: str
    notes: tuple[NoteRef, ...] = ()

    def as_report(self) -> dict[str, object]:
        """``{kep, kep_path, stage, release, state, reason, source, notes: [{release, pr, url, role, said}]}``."""
        notes = [{k: v for k, v in n._asdict().items() if k != "excerpt"} for n in self.notes]
        return {**self._asdict(), "notes": notes}


def word(stage: str) -> str:
    """``GA`` for ``stable``, else the stage as written."""
    return "GA" if stage == "stable" else stage


def _prs(items: tuple[NoteRef, ...]) -> str:
    return ", ".join(f"#{n.pr}" for n in items)


def _announced(notes: tuple[NoteRef, ...], release: str) -> str:
    """``the v1.37 notes announce it (#1, #2)``; a note of a later release naming that release says so:
    ``the v1.35 notes announce it in v1.34 (#134452)``."""
    by: dict[str, list[NoteRef]] = {}
    for n in notes:
        by.setdefault(n.release, []).append(n)
    return "; ".join(
        f"the {r} notes announce it{'' if r == release else f' in {release}'} ({_prs(tuple(ns))})"
        for r, ns in by.items()
    )


def assess(
    kep: str,
    kep_path: str,
    stage: str,
    release: str,
    *,
    closed: bool,
    why_open: str,
    gate: Verdict | None = None,
    notes: NotesView | None = None,
) -> PlannedStage:
    """The :class:`PlannedStage` of ``stage`` planned for ``release``.

    ``closed``: whether the release is closed (see the module docstring); ``why_open``: the reason it is not
    (``"v1.37 is the release in progress"``); ``gate``: the gate list's verdict (state ``""`` without a gate
    that speaks for the KEP, the reason then saying why; ``None`` without a gate list); ``notes``: what the
    release notes say (``None`` without release notes).
    """
    listed, gate = gate is not None, gate or SILENT
    n = notes or NotesView()
    confirm, counters = n.having(CONFIRMS), n.having(COUNTER)
    said = [_announced(confirm, release)] if confirm else []
    counter = ""
    if counters and not confirm:
        noun, verb = ("note", "says") if len(counters) == 1 else ("notes", "say")
        counter = f"the {release} {noun} {_prs(counters)} {verb} {word(counters[0].said)}"
    extra = []
    if n.having(TURNED_OFF):
        off = n.having(TURNED_OFF)
        extra.append(f"the {release} note{'s' if len(off) > 1 else ''} {_prs(off)} turned it off by default")
    if n.having(POSSIBLE) and not confirm:
        extra.append(f"possible evidence: {_prs(n.having(POSSIBLE))} (matched by title words)")
    shown = [x for x in n.notes if x.role != ELSEWHERE]

    def made(state: str, reason: str, source: str, refs: list[NoteRef] = shown) -> PlannedStage:
        return PlannedStage(kep, kep_path, stage, release, state, "; ".join([reason, *extra]), source, tuple(refs))

    shows = f"the gate list shows {gate.reason}" if gate.state else f"the gate list: {gate.reason}"
    if gate.state == CONTRADICTED:  # reached in another closed release: no release is pending for it
        return made(CONTRADICTED, "; ".join([shows, *said]), GATE_LIST)
    if not closed:
        if counter:  # the list's reading of a release not closed is no second source
            return made(CONTRADICTED, counter, RELEASE_NOTES)
        return made(PENDING, "; ".join([why_open, *said]), RELEASE)
    if gate.state == CONFIRMED or (gate.state == UNKNOWN and not (confirm or counter)):
        return made(gate.state, "; ".join([shows, *said]), GATE_LIST)
    if confirm:
        return made(CONFIRMED, said[0] + (f"; {shows}" if gate.reason else ""), RELEASE_NOTES)
    if counter:
        return made(CONTRADICTED, counter, RELEASE_NOTES)
    elsewhere = n.having(ELSEWHERE)
    if elsewhere:
        first = elsewhere[0]
        why = f"the {first.release} note #{first.pr} says {word(stage)} {first.said}, not {release}"
        return made(CONTRADICTED, why, RELEASE_NOTES, [*shown, first])
    parts = [shows if gate.reason else "no feature gate of its own in the gate list"] if listed else []
    if notes is not None:
        parts.append(f"no {release} note announces it" if n.read else f"no release notes for {release}")
    return made(UNKNOWN, "; ".join(parts), GATE_LIST if listed else RELEASE_NOTES)
