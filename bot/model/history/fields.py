"""The fields of one kep.yaml version that history tracks, as comparable strings. Pure.

Parsing goes through :func:`bot.model.kep.parse_kep` (the loader sync uses), so a
value here is exactly the value a sync of that revision would have seen.
"""

from __future__ import annotations

from bot.model.kep import MILESTONE_KEYS, Kep, KepFileError, parse_kep

#: Tracked fields in timeline order: status, stage, latest milestone, the stage milestones, feature gates.
TRACKED = ("status", "stage", "latest-milestone", *(f"milestone.{k}" for k in MILESTONE_KEYS), "feature-gates")
#: Report field (``Change.field``, :data:`bot.wiki.matrix.FIELDS`) -> tracked field.
CHANGE_FIELDS = {
    "status": "status",
    "stage": "stage",
    "alpha": "milestone.alpha",
    "beta": "milestone.beta",
    "stable": "milestone.stable",
    "feature_gates": "feature-gates",
}


def kep_fields(kep: Kep) -> dict[str, str]:
    """``{tracked field: value}`` of one KEP plus ``title`` and ``sig``; raw strings as written, ``""`` when
    absent; ``feature-gates`` is the real gate names sorted and joined with ``", "``."""
    out = {"status": kep.status, "stage": kep.stage, "latest-milestone": kep.latest_milestone}
    out.update({f"milestone.{k}": kep.milestone(k) for k in MILESTONE_KEYS})
    out["feature-gates"] = ", ".join(kep.gates())
    out["title"], out["sig"] = kep.title, kep.sig
    return out


def blob_fields(path: str, data: bytes) -> dict[str, str] | None:
    """:func:`kep_fields` of the kep.yaml bytes ``data`` found at ``path``; ``None`` when the file is unusable
    (not YAML, not a mapping, no KEP number: :class:`bot.model.kep.KepFileError`)."""
    try:
        return kep_fields(parse_kep(path, data))
    except KepFileError:
        return None
