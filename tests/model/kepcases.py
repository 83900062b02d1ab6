"""A clean kep.yaml for the tests of ``bot.model.kep`` and its parse with some top-level lines replaced, plus the
value lists its problems name.

    kep = parse(stage="stage: alphaa")  # the clean file with its ``stage:`` line replaced
    assert kep.problems == (Problem(PATH, "stage", f"'alphaa' is not a valid stage ({VALID_STAGES})"),)
"""

from __future__ import annotations

from bot.model.kep import Kep, parse_kep

#: The path the clean file is parsed at (its directory says KEP 5075, as its ``kep-number`` does).
PATH = "keps/sig-scheduling/5075-dra-consumable-capacity/kep.yaml"
#: The valid statuses and stages as a problem lists them (``bot.model.kep.STATUSES``; ``STAGES`` then
#: ``DEPRECATION_STAGES``).
VALID_STATUSES = "provisional, implementable, implemented, deferred, rejected, withdrawn, replaced"
VALID_STAGES = "alpha, beta, stable, deprecated, disabled, removed"


def kep_yaml(**overrides: str | None) -> bytes:
    """A clean kep.yaml (UTF-8); ``overrides`` replace (or with ``None`` drop) top-level lines by key, ``_`` in a
    keyword standing for ``-`` in the key (``kep_number="kep-number: 1"``)."""
    fields = {
        "title": "title: DRA consumable capacity",
        "kep-number": 'kep-number: "5075"',
        "owning-sig": "owning-sig: sig-scheduling",
        "status": "status: implementable",
        "creation-date": "creation-date: 2025-01-30",
        "last-updated": 'last-updated: "2025-06-11"',
        "stage": "stage: alpha",
        "latest-milestone": 'latest-milestone: "v1.34"',
        "milestone": 'milestone:\n  alpha: "v1.34"\n  beta: "v1.35"',
        "feature-gates": "feature-gates:\n  - name: DRAConsumableCapacity\n    components:\n      - kube-apiserver",
    }
    for key, value in overrides.items():
        key = key.replace("_", "-")
        if value is None:
            fields.pop(key, None)
        else:
            fields[key] = value
    return ("\n".join(fields.values()) + "\n").encode()


def parse(path: str = PATH, **overrides: str | None) -> Kep:
    """``parse_kep`` of :func:`kep_yaml` with ``overrides`` at ``path``."""
    return parse_kep(path, kep_yaml(**overrides))
