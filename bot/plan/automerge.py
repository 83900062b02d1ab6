"""Whether a plan may be merged without a reviewer (``pull_request.automerge``): the reasons it may not. Pure.

A plan may be merged when nothing needs a look: the items of the changelog's Needs a look section
(:attr:`bot.plan.planner.SyncPlan.needs_a_look`: contradictions, defaults turned off, released milestones
rewritten, findings on the changed rows) are none, no applied change carries a flag (a released milestone
rewritten or a kep.yaml contradicting itself, also in the plain layout without release notes and a gate list),
no row was left as is and no value went untrusted; and every applied change is of a kind allowed, those of a ``confirmed`` kind backed by
a release note that is sure (not ``possible:``, ``ambiguous:`` or one announcing another stage) or by the gate
list (its Shipped mark ``✓``). What the pull request and its checks say is read by the publisher
(:mod:`bot.publish.github_merge`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from bot.plan.diff import Change
from bot.plan.evidence.gates import SHIPPED

if TYPE_CHECKING:
    from bot.plan.planner import SyncPlan


def confirmed(change: Change) -> bool:
    """True when a sure release note or the gate list (Shipped ``✓``) backs ``change``."""
    sure = any(not (e.possible or e.counter or e.ambiguous) for e in change.evidence)
    return sure or (change.shipped is not None and change.shipped.mark == SHIPPED)


def plan_holds(plan: SyncPlan, kinds: Collection[str], confirm: Collection[str]) -> list[str]:
    """One line per reason ``plan`` may not be merged without a reviewer (``[]``: it may), most important first.

    ``kinds``: the change kinds allowed; ``confirm``: those allowed only when :func:`confirmed`. The lines are
    plain text of the bot's own words plus KEP ids and field names (the caller escapes them for markdown).
    """
    out: list[str] = []
    if plan.needs_a_look:
        n = len(plan.needs_a_look)
        out.append(f"Needs a look has {n} item{'s' if n != 1 else ''}")
    applied = [c for c in plan.changes if c.applied]
    out += [f"KEP {c.kep_id} {c.field} carries a flag ({c.flags[0]})" for c in applied if c.flags][:1]
    if plan.problems:
        n = len(plan.problems)
        out.append(f"{n} problem{'s' if n != 1 else ''} (rows left as is or values not trusted)")
    for c in applied:
        if c.kind not in kinds:
            out.append(f"KEP {c.kep_id} {c.field}: a {c.kind} change is not in pull_request.automerge.kinds")
            break
    for c in applied:
        if c.kind in kinds and c.kind in confirm and not confirmed(c):
            out.append(f"KEP {c.kep_id} {c.field}: {c.kind}, not confirmed by a release note or the gate list")
            break
    return out
