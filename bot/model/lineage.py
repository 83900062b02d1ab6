"""Which KEPs another KEP replaces: kep.yaml ``replaces`` and ``superseded-by`` read as KEP references.

Pure: a :class:`~bot.model.snapshot.Snapshot` in, ``{kep.yaml path: why}`` out.

Upstream writes these fields many ways (kubernetes/enhancements at the bundle HEAD, 2026-07-22):
``"/keps/sig-scheduling/583-coscheduling"``, the same with a trailing ``/`` or ``/README.md``,
``kubernetes/enhancements/keps/sig-node/375-cpumanager/README.md``, ``"6090"``, ``KEP-100``,
``583-coscheduling``, and things that name no KEP (``n/a``, ``none``, pull request URLs, design
proposals, old dated ``.md`` files). Only an entry that names a KEP directory (``NNNN-slug``, under
``keps/`` or alone) or a bare number (``NNNN``, ``KEP-NNNN``) counts; a URL counts only through its
``keps/.../NNNN-slug`` part, so ``.../enhancements/pull/1084`` never means KEP 1084. A slug must
match the directory's (any case); a bare number must name exactly one KEP.
"""

from __future__ import annotations

import re

from bot.model.kep import Kep
from bot.model.snapshot import Snapshot, slug_matches

_DIR_RE = re.compile(r"^([0-9]{1,9})-([A-Za-z0-9][A-Za-z0-9_.-]*?)(?:\.md)?$")
_NUMBER_RE = re.compile(r"^(?:KEP[- ]?)?([0-9]{1,9})$", re.IGNORECASE)


def kep_reference(entry: str) -> tuple[int, str] | None:
    """``(number, slug)`` of the KEP an entry names (``slug`` ``""`` for a bare number), else ``None``."""
    text = entry.strip().strip("\"'()[] ")
    if "keps/" in text:
        parts = [p for p in text.split("keps/")[-1].split("/") if p]
        found = next((m for m in map(_DIR_RE.match, parts) if m), None)
        return (int(found.group(1)), found.group(2)) if found else None
    m = _DIR_RE.match(text)
    if m:
        return int(m.group(1)), m.group(2)
    m = _NUMBER_RE.match(text)
    return (int(m.group(1)), "") if m else None


def referenced(snapshot: Snapshot, entry: str) -> Kep | None:
    """The one KEP of ``snapshot`` an entry names (:func:`kep_reference`), ``None`` when it names none or is
    ambiguous."""
    ref = kep_reference(entry)
    if ref is None:
        return None
    keps = snapshot.keps.get(ref[0], ())
    if ref[1]:
        keps = tuple(k for k in keps if slug_matches(k.slug, ref[1]))
    return keps[0] if len(keps) == 1 else None


def replaced(snapshot: Snapshot) -> dict[str, str]:
    """``{kep.yaml path: why}`` of every KEP that another kep.yaml ``replaces`` (``"replaced by 5832"``) or
    whose own ``superseded-by`` names another KEP (``"superseded by 2386"``)."""
    out: dict[str, str] = {}
    for kep in snapshot.all_keps():
        for entry in kep.replaces:
            old = referenced(snapshot, entry)
            if old is not None and old.path != kep.path:
                out.setdefault(old.path, f"replaced by {kep.number} ({kep.path} replaces {entry!r})")
        for entry in kep.superseded_by:
            new = referenced(snapshot, entry)
            if new is not None and new.path != kep.path:
                out.setdefault(kep.path, f"superseded by {new.number} ({kep.path}: superseded-by {entry!r})")
    return out
