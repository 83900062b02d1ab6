"""Sources: where the upstream data comes from (enhancements, release notes)."""

from __future__ import annotations

import re

from bot.errors import UsageError

_NAME = r"[A-Za-z0-9_.-]+"
_GITHUB_RE = re.compile(rf"github:({_NAME})/({_NAME})(?:@(.+))?", re.DOTALL)
#: Characters git check-ref-format forbids (controls, space, ``~^:?*[\``), plus ``#`` and ``%``,
#: which would change the meaning of a URL path.
_REF_BAD_CHARS = re.compile(r"[\x00-\x20\x7f~^:?*\[\\#%]")


def is_valid_name(name: str) -> bool:
    """True for a GitHub OWNER or REPO name: ``[A-Za-z0-9_.-]+`` and not ``.`` or ``..``."""
    return bool(re.fullmatch(_NAME, name)) and name not in (".", "..")


def is_valid_ref(ref: str) -> bool:
    """True when ``ref`` is a plausible git ref name (branch, tag or commit SHA).

    The rules of ``git check-ref-format --allow-onelevel``: no ``..``, ``@{``,
    control characters, space or any of ``~^:?*[\\``; no leading, trailing or
    doubled ``/``; no component starting with ``.`` or ending in ``.lock``; not
    ending in ``.``; not ``@``. ``#`` and ``%`` are refused too (URL syntax).
    """
    if not ref or ref == "@" or ".." in ref or "@{" in ref or _REF_BAD_CHARS.search(ref):
        return False
    if ref.startswith("/") or ref.endswith(("/", ".")) or "//" in ref:
        return False
    return all(not part.startswith(".") and not part.endswith(".lock") for part in ref.split("/"))


def parse_github_spec(value: str, flag: str, default_ref: str) -> tuple[str, str] | None:
    """``("OWNER/REPO", REF)`` for ``github:OWNER/REPO[@REF]``; ``None`` when ``value`` is not a ``github:`` form.

    Raises :class:`UsageError` naming ``flag`` for an empty ``value`` (which
    would otherwise read as the current directory), a malformed ``github:``
    value, an OWNER or REPO of ``.``/``..``, or a REF that is not a valid git
    ref name (:func:`is_valid_ref`).
    """
    if not value.strip():
        raise UsageError(f"{flag} {value!r}: empty")
    m = _GITHUB_RE.fullmatch(value)
    if m:
        owner, repo, ref = m.group(1), m.group(2), m.group(3) or default_ref
        if not (is_valid_name(owner) and is_valid_name(repo)):
            raise UsageError(f"{flag} {value!r}: OWNER and REPO must not be '.' or '..'")
        if not is_valid_ref(ref):
            raise UsageError(f"{flag} {value!r}: REF {ref!r} is not a valid git ref name")
        return f"{owner}/{repo}", ref
    if value.startswith("github:"):
        raise UsageError(f"{flag} {value!r}: expected github:OWNER/REPO@REF")
    return None
