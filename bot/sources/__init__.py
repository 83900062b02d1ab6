"""Sources: where the upstream data comes from (enhancements, release notes)."""

from __future__ import annotations

import re

from bot.errors import UsageError

_NAME = r"[A-Za-z0-9_.-]+"
_GITHUB_RE = re.compile(rf"github:({_NAME})/({_NAME})(?:@(.+))?", re.DOTALL)
#: Characters git check-ref-format forbids (controls, space, ``~^:?*[\``), plus ``#`` and ``%``,
#: which would change the meaning of a URL path.


def is_valid_name(name: str) -> bool:
    """True for a GitHub OWNER or REPO name: ``[A-Za-z0-9_.-]+`` and not ``.`` or ``..``."""
    return bool(re.fullmatch(_NAME, name)) and name not in (".", "..")


_REF_FORBIDDEN = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]")
_REF_FORBIDDEN_TEXT = "spaces, control characters or any of ~ ^ : ? * [ \\"


def ref_name_problem(name: str, *, branch: bool = True) -> str | None:
    """Why ``name`` is not a valid git ref name, or ``None`` when it is.

    ``branch=True``: ``git check-ref-format --branch`` (a branch kep-sync creates);
    ``branch=False``: a ref to read (``HEAD``, a tag or a SHA allowed).
    Rules (git-check-ref-format(1)): not empty, not ``@`` (nor ``HEAD`` or a leading ``-`` for a branch);
    no space, control character, ``~ ^ : ? * [ \\``, ``..`` or ``@{``; no
    leading, trailing or doubled ``/``; no trailing ``.``; no component that
    starts with ``.`` or ends with ``.lock``.
    """
    if not name:
        return "must not be empty"
    checks = [
        (name == "@" or (branch and name == "HEAD"), "must not be '@' or 'HEAD'"),
        (branch and name.startswith("-"), "must not start with '-'"),
        (_REF_FORBIDDEN.search(name) is not None, f"must not contain {_REF_FORBIDDEN_TEXT}"),
        (".." in name, "must not contain '..'"),
        ("@{" in name, "must not contain '@{'"),
        (name.startswith("/") or name.endswith("/") or "//" in name, "must not start or end with '/' or contain '//'"),
        (name.endswith("."), "must not end with '.'"),
        (any(c.startswith(".") for c in name.split("/")), "no path component may start with '.'"),
        (any(c.endswith(".lock") for c in name.split("/")), "no path component may end with '.lock'"),
    ]
    return next((why for bad, why in checks if bad), None)


def is_valid_ref(ref: str) -> bool:
    """True when ``ref`` is a git ref name kep-sync will put in a URL: :func:`ref_name_problem`
    (``branch=False``) finds nothing and it has no ``#`` or ``%`` (URL syntax)."""
    return ref_name_problem(ref, branch=False) is None and not any(c in ref for c in "#%")


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
