"""The one type for something a reviewer must see but kep-sync never applies: a :class:`Finding`.

A finding is report-only: it is listed in the changelog ("Needs review", "Not production
capability", "kep.yaml contradicts itself") and in the JSON report, and changes no page.
A :class:`~bot.model.kep.Problem` is the other report-only type: a value kep-sync cannot
trust or a row it leaves as is, named by file and key.
"""

from __future__ import annotations

from typing import NamedTuple


class Finding(NamedTuple):
    """Something a reviewer must see; never applied.

    Always set: ``kind`` (which check found it, e.g. ``not-in-notes``, ``gate-typo``,
    ``not-production``, ``inconsistent``), ``kep_id`` (the KEP id, :func:`bot.plan.diff.kep_id`,
    or the KEP cell as the page writes it; ``""`` for an undeclared feature gate), ``kep_path``
    (the kep.yaml, ``""`` when none), ``release`` (``vMAJOR.MINOR`` concerned, ``""`` when none)
    and ``message`` (one line quoting the values; ``""`` when the other fields say it all).

    Set by the check that needs them, else empty:

    - the release note behind it: ``pr`` (``0`` when the finding is an absence), ``url``, ``excerpt``;
    - the kep.yaml fields it concerns (wiki field names: ``stage``, ``beta``; the first is where it is shown):
      ``fields``;
    - the row it concerns: ``page``, 1-based ``line``, ``table`` (the heading above it) and ``status``
      (kep.yaml's, else the row's).
    """

    kind: str
    kep_id: str
    kep_path: str
    release: str
    message: str
    pr: int = 0
    url: str = ""
    excerpt: str = ""
    fields: tuple[str, ...] = ()
    page: str = ""
    line: int = 0
    table: str = ""
    status: str = ""

    def as_report(self, keys: tuple[str, ...]) -> dict[str, object]:
        """The JSON report object of this finding: ``keys`` in order, each the field of that name except
        ``kep``, which is :attr:`kep_id` (the report's key for the KEP id)."""
        return {k: self.kep_id if k == "kep" else getattr(self, k) for k in keys}


#: Report keys of a release-notes discrepancy (:func:`bot.plan.evidence.find_discrepancies`).
NOTE_KEYS = ("kind", "kep", "kep_path", "release", "message", "pr", "url", "excerpt")
#: Report keys of a feature-gate lifecycle finding (:func:`bot.plan.evidence.gates.findings`).
GATE_KEYS = NOTE_KEYS[:5]
#: Report keys of a ``not-production`` finding (:func:`bot.plan.tracking.production.not_production`).
ROW_KEYS = ("kind", "kep", "page", "line", "table", "status", "kep_path")
