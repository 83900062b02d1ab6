"""New KEP candidates: KEPs upstream that the pages track but that have no row yet (the page's rule 1).

Pure: the snapshot, the KEPs the rows resolved to, the gates the rows show
and the design groups in; a ranked list of :class:`Candidate` out.

A KEP is a candidate when it has no row on any configured page, its status
is not ``withdrawn``, ``rejected`` or ``replaced`` (nor the out-of-schema
``superseded`` / ``removed``), no other kep.yaml says it ``replaces`` it and its own
``superseded-by`` names no other KEP (:func:`bot.model.lineage.replaced`: KEP 4671
replaces 583 and 5832 at the bundle HEAD), and either

- a design group on the coverage page lists it, or
- its owning SIG is tracked (the SIGs of the KEPs on the pages, or
  ``candidates.sigs``) and it is *active* in the newest releases (its
  ``latest-milestone`` or a stage milestone, ``milestone.alpha/beta/stable``,
  falls in the window below or later) or it declares a feature gate a row
  already shows.

The window: the newest ``latest-milestone`` any kep.yaml names is the release
being planned (stage milestones are not used for it: they are often targets
years ahead); the window starts ``releases`` releases before it (same major
version), so with the default 1 and a newest ``latest-milestone`` of v1.38 it
holds v1.37 and v1.38. A KEP only one kep.yaml names as v1.38 therefore
cannot hide the release most KEPs are in.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Iterable, Mapping
from typing import NamedTuple

from bot.model.kep import STATUSES, Kep, milestone_key, normalize_milestone
from bot.model.lineage import replaced
from bot.model.snapshot import Snapshot
from bot.plan.diff import kep_id

#: Statuses that never make a candidate (kep.yaml schema, plus two out-of-schema values seen upstream).
CLOSED_STATUSES = frozenset({"withdrawn", "rejected", "replaced", "superseded", "removed"})
#: Weight of each reason kind in the ranking (higher first).
_WEIGHTS = {"group": 8, "new": 4, "active": 2, "gate": 2, "targets": 1}


#: Reason kinds, as ``candidates.add_to.reasons`` names them.
REASON_KINDS = tuple(_WEIGHTS)


class Candidate(NamedTuple):
    """One proposed KEP: the upstream ``kep``, its report id ``ident`` (``"4671"``, or the directory
    name when upstream uses the number twice), the ``reasons`` (human-readable, strongest first),
    the ranking ``score`` (higher first) and the reason ``kinds`` (:data:`REASON_KINDS`)."""

    kep: Kep
    ident: str
    reasons: tuple[str, ...]
    score: int
    kinds: frozenset[str] = frozenset()

    def as_report(self) -> dict[str, object]:
        """``{"kep", "title", "sig", "path", "status", "stage", "latest_milestone", "alpha", "beta", "stable",
        "feature_gates", "reasons"}``, values as kep.yaml writes them (gates without placeholders)."""
        k = self.kep
        return {
            "kep": self.ident,
            "title": k.title,
            "sig": k.sig,
            "path": k.path,
            "status": k.status,
            "stage": k.stage,
            "latest_milestone": k.latest_milestone,
            "alpha": k.milestone("alpha"),
            "beta": k.milestone("beta"),
            "stable": k.milestone("stable"),
            "feature_gates": list(k.gates()),
            "reasons": list(self.reasons),
        }


def window_start(keps: Iterable[Kep], releases: int) -> tuple[int, int] | None:
    """``(major, minor)`` of the oldest release in the window: the newest ``latest-milestone`` minus
    ``releases`` minor versions (not below ``.0``); ``None`` when no kep.yaml names a latest-milestone.

    A newest value more than one minor release ahead of every other (a typo such as ``v1.73`` while
    the rest say at most ``v1.38``) is not taken as the newest release: the newest is the first
    value, from the top, whose previous minor release some kep.yaml names too (else the top value).
    """
    named = sorted({m for m in (milestone_key(k.latest_milestone) for k in keps) if m}, reverse=True)
    if not named:
        return None
    newest = next((a for a, b in itertools.pairwise(named) if a[0] == b[0] and a[1] - b[1] <= 1), named[0])
    return newest[0], max(newest[1] - releases, 0)


def find_candidates(
    snapshot: Snapshot,
    on_pages: Collection[str],
    *,
    sigs: Collection[str],
    shown_gates: Mapping[str, Collection[str]],
    groups: Mapping[str, Collection[str]] | None = None,
    releases: int = 1,
    ignore: Collection[int] = (),
) -> list[Candidate]:
    """Rank the KEPs worth a new row.

    ``on_pages``: kep.yaml paths of the KEPs that already have a row (a
    number upstream uses twice counts as covered only for the KEP the row
    resolved to); ``sigs``: tracked owning SIGs (``sig-node`` or ``node``);
    ``shown_gates``: ``{gate: row ids that show it}`` from the rows' feature
    gate cells; ``groups``: ``{kep.yaml path: design group names}``
    (:func:`bot.plan.tracking.listed_keps`); ``releases``:
    window size (>= 1); ``ignore``: KEP numbers never proposed. Ordered by
    score, then newest ``latest-milestone``, then KEP number descending.
    """
    keps = snapshot.all_keps()
    start = window_start(keps, releases)
    tracked = {tracked_sig(s) for s in sigs}
    gone = replaced(snapshot)
    out: list[Candidate] = []
    for kep in keps:
        if kep.path in on_pages or kep.number in ignore or kep.status.casefold() in CLOSED_STATUSES or kep.path in gone:
            continue
        reasons: list[tuple[str, str]] = [
            ("group", f'in design group "{name}"') for name in (groups or {}).get(kep.path, ())
        ]
        if tracked_sig(kep.sig) in tracked:
            reasons += _activity(kep, start)
            for gate in kep.gates():
                rows = sorted(shown_gates.get(gate, ()), key=_numeric)
                if rows:
                    reasons.append(("gate", f"shares gate {gate} with {', '.join(rows)}"))
        if not reasons:
            continue
        kinds = frozenset(kind for kind, _ in reasons)
        score = sum(_WEIGHTS[kind] for kind in kinds)
        if kep.status not in STATUSES or kep.status == "provisional":
            score -= 1
        out.append(Candidate(kep, kep_id(snapshot, kep), tuple(text for _, text in reasons), score, kinds))
    out.sort(
        key=lambda c: (
            -c.score,
            tuple(-x for x in milestone_key(c.kep.latest_milestone) or (0, 0)),
            -c.kep.number,
            c.kep.path,
        )
    )
    return out


def _activity(kep: Kep, start: tuple[int, int] | None) -> list[tuple[str, str]]:
    """``new in vX`` (its first stage milestone is in the window), else ``active in vX`` (latest-milestone
    in the window), else ``targets <stage> in vX`` (a later stage milestone is); ``[]`` when none is."""
    if start is None:
        return []
    keyed = [(key, milestone_key(kep.milestone(key))) for key in ("alpha", "beta", "stable")]
    stages = [(key, m) for key, m in keyed if m]
    latest = milestone_key(kep.latest_milestone)
    first = min((m for _, m in stages), default=latest)
    if first and first >= start:
        return [("new", f"new in {_v(first)}")]
    if latest and latest >= start:
        return [("active", f"active in {_v(latest)}")]
    ahead = [(key, m) for key, m in stages if m >= start]
    if ahead:
        key, m = ahead[0]
        return [("targets", f"targets {key} in {_v(m)}")]
    return []


def _v(key: tuple[int, int]) -> str:
    return f"v{key[0]}.{key[1]}"


def tracked_sig(name: str) -> str:
    """A SIG name as compared: case-folded, ``sig-`` added (``Node`` -> ``sig-node``); ``""`` stays ``""``."""
    name = name.strip().casefold()
    return name if name.startswith("sig-") or not name else f"sig-{name}"


def _numeric(ident: str) -> tuple[int, str]:
    digits = "".join(ch for ch in ident.split("-")[0] if ch.isdigit())
    return (int(digits) if digits else 0, ident)


def milestone_text(value: str) -> str:
    """A kep.yaml milestone for display: ``v1.37`` for ``1.37``; other text (``TBD``) as written; ``-`` when empty."""
    norm = normalize_milestone(value)
    return norm or value.strip() or "-"
