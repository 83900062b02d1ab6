"""Where a kep.yaml writes the keys kep-sync reads: ``{field: 1-based line}``. Pure.

A plain line scan (no YAML parse): a top-level ``status:``, ``stage:`` or
``feature-gates:`` key at column 0, and ``alpha:``/``beta:``/``stable:``
indented under a top-level ``milestone:`` key. The first occurrence wins (a key
given twice is untrusted anyway). Used for links that land on the line:
``.../kep.yaml#L12``.
"""

from __future__ import annotations

import re

_TOP_RE = re.compile(r"^([A-Za-z][\w-]*)\s*:")
_NESTED_RE = re.compile(r"^[ \t]+(alpha|beta|stable)\s*:")
#: Top-level kep.yaml key -> field name (:data:`bot.wiki.matrix.FIELDS`).
_TOP = {"status": "status", "stage": "stage", "feature-gates": "feature_gates"}


def key_lines(data: bytes) -> tuple[tuple[str, int], ...]:
    """``((field, 1-based line), ...)`` for status, stage, feature_gates and the alpha/beta/stable milestones."""
    found: dict[str, int] = {}
    in_milestone = False
    for number, line in enumerate(data.decode("utf-8", "replace").split("\n"), start=1):
        top = _TOP_RE.match(line)
        if top:
            in_milestone = top.group(1) == "milestone"
            if top.group(1) in _TOP:
                found.setdefault(_TOP[top.group(1)], number)
            continue
        nested = _NESTED_RE.match(line) if in_milestone else None
        if nested:
            found.setdefault(nested.group(1), number)
    return tuple(found.items())
