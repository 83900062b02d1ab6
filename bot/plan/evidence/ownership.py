"""Who owns a feature gate that several kep.yaml files declare: the KEP that declared it first.

Pure: KEPs, the snapshot (to read ``replaces`` / ``see-also`` as KEPs) and the date each kep.yaml first
declared each gate (:mod:`bot.model.history.declared`, from the kep.yaml history) in; values out.

The rule, for a gate two or more KEPs declare:

- the KEP whose kep.yaml declared it first owns it (``PodLevelResources``: 2837, before 5419 and 5526);
- when that KEP is withdrawn or replaced, ownership passes to the one live KEP declaring the gate whose
  ``replaces`` or ``see-also`` names it, or that its own ``superseded-by`` names (``DynamicResourceAllocation``:
  3063 declared it first and is withdrawn; 4381's ``see-also`` names 3063, so 4381 owns it);
- every other declarer *borrows* the gate: it added an existing gate later (3695 for
  ``DynamicResourceAllocation``).

The owner speaks for the gate (its gate-list findings, the release notes naming the gate); a borrower stays
silent about it. Where the history cannot decide (no history of a declarer, a shallow clone hiding the first
date, a version of a declarer's kep.yaml that could not be read before it declared the gate, two KEPs declaring
it in the same commit, a withdrawn first owner that no live declarer links), the gate has no owner and the reason says why: nothing is guessed, and the gate stays shared as before
(:func:`bot.plan.evidence.index.gate_owners`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

from bot.model.history.declared import UNREADABLE_BEFORE, Declared, GateOrigins
from bot.model.history.log import utc_day
from bot.model.kep import Kep
from bot.model.lineage import referenced, replaced
from bot.model.snapshot import Snapshot
from bot.plan.evidence.index import DEAD_STATUSES, gate_owners


class Ownership(NamedTuple):
    """One shared gate: its ``gate`` name, the ``owner`` (kep.yaml path; ``""`` when the history cannot decide),
    every ``declarer`` (kep.yaml paths, sorted), ``why`` (one line naming the KEPs, the first declaration's
    pull request and date, or why no owner is named) and ``since``: the earliest release the owner's kep.yaml
    named when it took the gate (:attr:`bot.model.history.declared.Declared.planned`; a stage the list shows
    before it was reached before the KEP had the gate) and ``passed``: the withdrawn or replaced KEPs that declared
    it first and passed it on to the owner, oldest first (never borrowers)."""

    gate: str
    owner: str
    declarers: tuple[str, ...]
    why: str
    since: str = ""
    passed: tuple[str, ...] = ()

    def borrowers(self) -> tuple[str, ...]:
        """The declarers that borrow the gate (every one but the owner and those that passed it on; none when
        there is no owner)."""
        return tuple(p for p in self.declarers if p != self.owner and p not in self.passed) if self.owner else ()

    def as_report(self, ids: Mapping[str, str]) -> dict[str, object]:
        """The report object: ``{gate, owner, borrowers, declarers, why}`` and ``passed_from`` when a first declarer
        passed the gate on (:attr:`passed`), KEPs by id (``ids``: path -> id)."""
        out: dict[str, object] = {
            "gate": self.gate,
            "owner": ids.get(self.owner, self.owner) if self.owner else None,
            "borrowers": [ids.get(p, p) for p in self.borrowers()],
            "declarers": [ids.get(p, p) for p in self.declarers],
            "why": self.why,
        }
        if self.passed:
            out["passed_from"] = [ids.get(p, p) for p in self.passed]
        return out


def shared_gates(
    all_keps: Iterable[Kep], of: Iterable[Kep], name: Callable[[str], str] = str
) -> dict[str, tuple[str, ...]]:
    """``{gate: declarers}`` of every gate that a KEP of ``of`` declares and that two or more KEPs of
    ``all_keps`` declare (live or not); ``name`` maps a declared name to the one it counts as (a typo of a
    listed gate to that gate)."""
    declared: dict[str, set[str]] = {}
    for kep in all_keps:
        for gate in kep.gates():
            declared.setdefault(name(gate), set()).add(kep.path)
    wanted = {name(g) for k in of for g in k.gates()}
    return {g: tuple(sorted(declared[g])) for g in sorted(wanted) if len(declared.get(g, ())) > 1}


def decide(
    snapshot: Snapshot,
    shared: Mapping[str, Sequence[str]],
    origins: GateOrigins,
    name: Callable[[str], str] = str,
) -> dict[str, Ownership]:
    """The :class:`Ownership` of each gate of ``shared`` (:func:`shared_gates`), by the rule of the module.

    ``origins``: ``{kep.yaml path: {declared name: Declared}}``; a declarer missing from it, or whose
    history never shows the gate, leaves the gate without an owner. ``name`` as for :func:`shared_gates`.
    """
    keps = {k.path: k for k in snapshot.all_keps()}
    dead = set(replaced(snapshot)) | {p for p, k in keps.items() if k.status in DEAD_STATUSES}
    out = {}
    for gate, declarers in shared.items():
        out[gate] = _decide(snapshot, gate, tuple(declarers), keps, dead, origins, name)
    return out


def _ident(kep: Kep) -> str:
    return str(kep.number)


def _first(path: str, kep: Kep, gate: str, origins: GateOrigins, name: Callable[[str], str]) -> Declared | None:
    seen = origins.get(path, {})
    found = [seen[raw] for raw in kep.gates() if name(raw) == gate and raw in seen]
    dated = [d for d in found if d.date]
    if len(dated) < len(found):
        unknown = next(d.unknown for d in found if not d.date)
        return Declared("", found[0].commit, found[0].pr, unknown=unknown)
    return min(dated, default=None)


def _decide(
    snapshot: Snapshot,
    gate: str,
    declarers: tuple[str, ...],
    keps: Mapping[str, Kep],
    dead: set[str],
    origins: GateOrigins,
    name: Callable[[str], str],
) -> Ownership:
    def none(why: str) -> Ownership:
        return Ownership(gate, "", declarers, f"history cannot decide: {why}")

    first: dict[str, Declared] = {}
    for path in declarers:
        found = _first(path, keps[path], gate, origins, name)
        if found is None:
            return none(f"no history of KEP {_ident(keps[path])} declaring it")
        if not found.date and found.unknown == UNREADABLE_BEFORE:
            return none(f"KEP {_ident(keps[path])}'s kep.yaml could not be read before it declared it")
        if not found.date:
            return none(f"KEP {_ident(keps[path])} declared it before the first commit of a shallow clone")
        first[path] = found
    ranked = all(d.order >= 0 for d in first.values())  # the first-parent line's order, else the dates

    def when(path: str) -> tuple[object, ...]:
        return (first[path].order,) if ranked else (first[path].date,)

    ordered = sorted(declarers, key=lambda p: (when(p), p))
    owner = ordered[0]
    tied = [p for p in ordered if when(p) == when(owner)]
    if len(tied) > 1:
        return none(f"KEPs {', '.join(_ident(keps[p]) for p in tied)} declared it in the same commit")
    story = f"declared first by KEP {_ident(keps[owner])} ({_when(first[owner])})"
    seen = {owner}
    passed: list[str] = []
    while owner in dead:
        heirs = [p for p in declarers if p not in dead and p not in seen and _links(snapshot, keps[p], keps[owner])]
        status = keps[owner].status if keps[owner].status in DEAD_STATUSES else "replaced"
        if len(heirs) != 1:
            which = "no" if not heirs else "more than one"
            return none(f"{story}, now {status}; {which} live KEP declaring it links KEP {_ident(keps[owner])}")
        story += f", now {status}; passed to KEP {_ident(keps[heirs[0]])}, which links it"
        passed.append(owner)
        owner = heirs[0]
        seen.add(owner)
    later = [_ident(keps[p]) for p in ordered if p not in seen]
    if later:
        story += f"; KEP {', '.join(later)} added it later"
    return Ownership(gate, owner, declarers, story, first[owner].planned, tuple(passed))


def _when(d: Declared) -> str:
    return (f"#{d.pr} " if d.pr else "") + utc_day(d.date)


def _links(snapshot: Snapshot, heir: Kep, owner: Kep) -> bool:
    """True when ``heir``'s ``replaces`` or ``see-also`` names ``owner``, or ``owner``'s ``superseded-by``
    names ``heir``."""
    for entry in (*heir.replaces, *heir.see_also):
        found = referenced(snapshot, entry)
        if found is not None and found.path == owner.path:
            return True
    for entry in owner.superseded_by:
        found = referenced(snapshot, entry)
        if found is not None and found.path == heir.path:
            return True
    return False


def owners_with(
    all_keps: Iterable[Kep], ownership: Mapping[str, Ownership], name: Callable[[str], str] = str
) -> dict[str, tuple[str, ...]]:
    """:func:`bot.plan.evidence.index.gate_owners` of ``all_keps`` with each gate that has an owner mapped to
    that owner alone (its borrowers then never speak for it); a gate without one stays as it was."""
    out = gate_owners(all_keps, name)
    for gate, own in ownership.items():
        if own.owner and gate in out:
            out[gate] = (own.owner,)
    return out
