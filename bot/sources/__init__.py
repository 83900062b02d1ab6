"""Sources: where the upstream data comes from (enhancements, release notes)."""

from __future__ import annotations

import re

from bot.errors import UsageError

_GITHUB_RE = re.compile(r"^github:([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)(?:@(.+))?$")


def parse_github_spec(value: str, flag: str, default_ref: str) -> tuple[str, str] | None:
    """``("OWNER/REPO", REF)`` for ``github:OWNER/REPO[@REF]``; ``None`` when ``value`` is not a ``github:`` form.

    Raises :class:`UsageError` naming ``flag`` for a malformed ``github:`` value.
    """
    m = _GITHUB_RE.match(value)
    if m:
        return f"{m.group(1)}/{m.group(2)}", m.group(3) or default_ref
    if value.startswith("github:"):
        raise UsageError(f"{flag} {value!r}: expected github:OWNER/REPO@REF")
    return None
