"""Release-note findings the gate list settles: a ``not-in-notes`` finding on a stage the list shows shipped.

Pure. A ``not-in-notes`` finding (:func:`bot.plan.evidence.review.find_discrepancies`) asks a reviewer to read
a release's prose for a KEP no note names. When the gate list shows the stage reached in that very release, the
question is answered: the finding stays under "Needs review", saying the list confirms it, and "Needs a look"
leaves it out (:mod:`bot.plan.changelog.signals`). The list confirms a stage when the gate that speaks for the
KEP reached it in that release (:func:`bot.plan.evidence.gates.verdict`, KEP 4205: ``KubeletPSI alpha in
v1.33``), or, for a KEP with several gates of its own and none picked, when the first of them to reach the
stage reached it in that release (KEP 5055: ``DRADeviceTaints`` alpha in 1.33, ``DRADeviceTaintRules`` born
alpha in 1.35). A gate other live KEPs declare too never settles anything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.model.finding import Finding
from bot.model.gates import Lifecycle, release_key
from bot.model.kep import STAGES, Kep, normalize_milestone
from bot.plan.evidence import gates as gates_mod
from bot.plan.evidence.stage_state import CONFIRMED, word

#: The finding kind the gate list can settle.
NOT_IN_NOTES = "not-in-notes"


def list_confirms(kep: Kep, release: str, j: gates_mod.Join, lc: Lifecycle) -> str:
    """Why the list confirms every stage ``kep`` plans in ``release`` (``vMAJOR.MINOR``), ``"; "``-joined
    (``"KubeletPSI alpha in v1.33"``); ``""`` when it does not confirm them all, or ``release`` is not closed."""
    stages = [s for s in STAGES if normalize_milestone(kep.milestone(s)) == release]
    if not stages or not gates_mod.closed(lc, release):
        return ""
    whys = [_confirms(stage, release, j, lc) for stage in stages]
    return "; ".join(whys) if all(whys) else ""


def _confirms(stage: str, release: str, j: gates_mod.Join, lc: Lifecycle) -> str:
    if j.gate:
        found = gates_mod.verdict(j.gate, stage, release, lc, j.since)
        return found.reason if found.state == CONFIRMED else ""
    own = [g for g in j.listed if g not in j.shared]
    if len(own) < 2:
        return ""
    reached = []
    for name in own:
        listed = lc.gate(name, release)
        spec = listed[0].reached(stage) if listed is not None else None
        if spec is not None and spec.release:
            reached.append((release_key(spec.release), name))
    if not reached:
        return ""
    first, name = min(reached)
    return f"{name} {word(stage)} in {release}" if first == release_key(release) else ""


def settle(
    found: Sequence[Finding], keps: Mapping[str, Kep], joins: Mapping[str, gates_mod.Join], lc: Lifecycle
) -> tuple[list[Finding], frozenset[tuple[str, str]]]:
    """``found`` with each ``not-in-notes`` finding the list settles saying so (``...; the gate list confirms
    it: KubeletPSI alpha in v1.33``), and the ``(kep_path, release)`` of those settled."""
    out, settled = [], set()
    for f in found:
        kep, j = keps.get(f.kep_path), joins.get(f.kep_path)
        why = list_confirms(kep, f.release, j, lc) if f.kind == NOT_IN_NOTES and kep and j else ""
        if why:
            out.append(f._replace(message=f"{f.message}; the gate list confirms it: {why}"))
            settled.add((f.kep_path, f.release))
        else:
            out.append(f)
    return out, frozenset(settled)
