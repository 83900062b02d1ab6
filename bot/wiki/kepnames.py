"""Every way a KEP column names a KEP, and what a cell that looks like a number but names no KEP is.

Pure. A KEP is named by its number, which is also the number of its tracking issue in
kubernetes/enhancements (KEP 4671 is https://github.com/kubernetes/enhancements/issues/4671):

- ``4671``, ``4671-gang-scheduling`` (the directory name; a slug has a letter, so a date
  ``2026-01-20`` is none), ``KEP-4671``, ``KEP 4671``, ``KEP #4671`` (any dash), ``#4671``,
  ``kubernetes/enhancements#4671``;
- a URL: ``https://kep.k8s.io/4671`` (the short link kep-sync's changelog writes), the tracking issue
  ``https://github.com/kubernetes/enhancements/issues/4671``, a KEP directory
  ``.../keps/sig-scheduling/4671-gang-scheduling``, with or without ``https://`` and ``<>``;
- any of those as a link's text or target: ``[KEP-4671](https://kep.k8s.io/4671)``,
  ``[Gang scheduling](https://kep.k8s.io/4671)``. A link whose text and target name two KEPs names
  none; a bare number (``4671``, ``#4671``) linked to anything else on GitHub (a pull request, an issue
  of kubernetes/kubernetes) names none either.

Never a KEP: a version (``1.30``, ``v1.30``), a date, ``kubernetes/kubernetes#123``, a pull request
(``https://github.com/kubernetes/enhancements/pull/4671``: its number is not a KEP's).
"""

from __future__ import annotations

import re
from typing import NamedTuple

#: ``KEP`` before a number: ``KEP-``, ``KEP 4671``, ``KEP #4671``, ``KEP‑4671`` (any dash: - ‐ ‑ ‒ – — −).
_PREFIX = r"KEP[ \t\u00a0]*[-\u2010-\u2015\u2212]?[ \t\u00a0]*#?[ \t\u00a0]*"
_SLUG = r"[A-Za-z0-9][A-Za-z0-9_.-]*"
#: A KEP written as text: ``(prefix)(number)(-slug)``; the prefix group tells a bare number from an explicit one.
_TEXT_RE = re.compile(
    rf"^({_PREFIX}|#[ \t]*|kubernetes/enhancements#)?([0-9]{{1,9}})(?:-({_SLUG}))?$",
    re.IGNORECASE,
)
#: A URL naming a KEP: its tracking issue, its ``kep.k8s.io`` short link or its ``keps/<sig>/`` directory.
_URL_RE = re.compile(
    r"^(?:https?://)?(?:"
    r"(?:www\.)?github\.com/kubernetes/enhancements/issues/([0-9]{1,9})(?:[/?#].*)?"
    r"|kep\.k8s\.io/([0-9]{1,9})(?:[/?#].*)?"
    rf"|\S*/keps/(?:[^/\s]+/)+([0-9]{{1,9}})-({_SLUG})(?:[/?#]\S*)?"
    r")$",
    re.IGNORECASE,
)
#: A URL on GitHub; one that is not a KEP's (:data:`_URL_RE`) names something else: a pull request, an issue,
#: a discussion, a commit, a file, a repository.
_GITHUB_RE = re.compile(r"^(?:https?://)?(?:www\.)?github\.com(?:[/?#]|$)", re.IGNORECASE)
#: ``[text](target)`` or ``[text](target "title")``, and a reference link ``[text][ref]``.
_LINK_RE = re.compile(r"^\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)$|^\[([^\]]+)\]\[[^\]]*\]$")
_MARKS = "*_`"


class KepName(NamedTuple):
    """A KEP a cell names: ``number``, ``slug`` (``""`` when the cell gives none) and ``bare``: True when the
    cell is only a number (``4671``, ``#4671``), which a column of other numbers could hold too."""

    number: int
    slug: str
    bare: bool


def kep_name(text: str) -> KepName | None:
    """The KEP a KEP cell names in one of the forms of this module, else ``None`` (see the module doc)."""
    text = _strip(text)
    link = _LINK_RE.match(text)
    if link is None:
        return _plain(text)
    label = _strip(link.group(1) if link.group(1) is not None else link.group(3))
    target = (link.group(2) or "").strip()
    by_label = _plain(label)
    by_target = _url(target) if target else None
    if by_label is not None and by_target is not None:
        if by_label.number != by_target.number:
            return None
        return KepName(by_label.number, by_label.slug or by_target.slug, False)
    if by_label is not None:
        if by_label.bare and _GITHUB_RE.match(target):
            return None
        return by_label
    if by_target is not None and not label_names_something_else(label):
        return by_target
    return None


def label_names_something_else(label: str) -> bool:
    """True when a link's text is a number of another kind (``#123``, ``kubernetes/kubernetes#123``, ``1.30``):
    the link is about that, whatever its target."""
    return bool(re.match(r"^(?:[\w.-]+/[\w.-]+)?#[0-9]+$|^v?[0-9]+(?:\.[0-9]+)+$", label.strip()))


def _strip(text: str) -> str:
    """``text`` without emphasis or code marks around it, and without the ``<>`` of an autolink."""
    text = text.strip().strip(_MARKS).strip()
    if text.startswith("<") and text.endswith(">") and " " not in text:
        text = text[1:-1]
    return text


def _plain(text: str) -> KepName | None:
    """A KEP named without a link: as text (:data:`_TEXT_RE`) or as a URL."""
    m = _TEXT_RE.match(text)
    if m:
        slug = m.group(3) or ""
        if slug and not any(ch.isalpha() for ch in slug):
            return None  # 2026-01-20: a date, not NUMBER-SLUG
        prefix = (m.group(1) or "").strip()
        return KepName(int(m.group(2)), slug, not slug and prefix in ("", "#"))
    return _url(text)


def _url(text: str) -> KepName | None:
    m = _URL_RE.match(text.strip())
    if not m:
        return None
    if m.group(3):
        return KepName(int(m.group(3)), m.group(4), False)
    return KepName(int(m.group(1) or m.group(2)), "", False)
