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

A URL names a KEP only on ``kep.k8s.io`` or in kubernetes/enhancements (``github.com/kubernetes/enhancements/...``,
``raw.githubusercontent.com/kubernetes/enhancements/...``); a link whose target is elsewhere (another repository,
another site: :func:`elsewhere`) names no KEP, since other projects number their own KEPs
(``[KEP-1136](https://github.com/kubernetes-sigs/kueue/tree/main/keps/1136-x)`` is kueue's, not
kubernetes/enhancements KEP 1136), unless its text names the repository itself
(``[kubernetes/enhancements#1287](https://example.org/notes)``, a KEP URL as the text). A relative target (``#gang``, ``gang.md``) is the wiki's own page: the
link's text decides.

Never a KEP: a version (``1.30``, ``v1.30``), a date, ``kubernetes/kubernetes#123``, a pull request
(``https://github.com/kubernetes/enhancements/pull/4671``: its number is not a KEP's).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
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
#: The host and the rest of an absolute URL: ``scheme://host...``, ``//host...`` or ``host.tld/...`` written
#: without a scheme (``github.com/x``, ``kep.k8s.io/4671``); a ``scheme:`` alone (``mailto:``) has no host.
_ABSOLUTE_RE = re.compile(
    r"^(?:[A-Za-z][A-Za-z0-9+.-]*:)?//(?:[^/?#\s@]*@)?([^/?#\s:]*)(?::[0-9]*)?(.*)$"
    r"|^((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,})(/.*)$"
    r"|^[A-Za-z][A-Za-z0-9+.-]*:()()"
)
#: The path of a URL into kubernetes/enhancements on github.com or raw.githubusercontent.com.
_ENHANCEMENTS_PATH_RE = re.compile(r"^/kubernetes/enhancements(?:\.git)?(?:[/?#]|$)", re.IGNORECASE)
#: ``[text](target)`` or ``[text](target "title")``, and a reference link ``[text][ref]``.
_LINK_RE = re.compile(r"^\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)$|^\[([^\]]+)\]\[[^\]]*\]$")
_MARKS = "*_`"
#: A link reference definition (``[label]: target``), up to 3 spaces in, also after block quote marks.
_DEFINITION_RE = re.compile(r"^(?:[ \t]{0,3}>)*[ \t]{0,3}\[([^\]]+)\]:[ \t]*<?([^\s>]+)>?")
#: A reference link that starts a cell: ``[text][ref]``, ``[text][]`` or ``[text]`` (groups: text, ref).
_REFERENCE_RE = re.compile(r"^\[([^\]]+)\](?:\[([^\]]*)\])?(?![(\[])")
#: A number that starts a cell, after an optional ``KEP`` prefix (:data:`_PREFIX`).
_LEADING_KEP_RE = re.compile(rf"^(?:{_PREFIX})?([0-9]{{1,9}})(?![0-9.])", re.IGNORECASE)
#: A URL naming a KEP: its enhancements issue, its ``kep.k8s.io`` short link or its ``keps/<sig>/`` directory.
_KEP_URL_RE = re.compile(
    r"(?:/enhancements/issues/|\bkep\.k8s\.io/|/keps/[^/\s)]+/)([0-9]{1,9})(?![0-9])"
    r"(?:-([A-Za-z0-9][A-Za-z0-9_.-]*))?"
)
#: A cell that starts with a link (after emphasis marks and tags other than ``<a>``): its text and target, of a
#: markdown ``[text](target)`` (groups 1, 2) or an HTML ``<a href="target">text</a>`` (groups 3, 4).
_LEADING_LINK_RE = re.compile(
    r"^(?:[*_`~\s]|<(?!a\b)[^<>]*>)*(?:\[([^\]]*)\]\(\s*<?([^)\s>]*)"
    r"|<a\b[^>]*?\bhref\s*=\s*[\"']?([^\"'\s>]*)[^>]*>([^<]*))",
    re.IGNORECASE,
)
#: An HTML tag (``<b>``, ``</a>``).
_TAG_RE = re.compile(r"</?[A-Za-z][^<>]*>")


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
    if target and foreign_link(label, target):
        return None
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


def elsewhere(target: str) -> bool:
    """True when ``target`` (a link target or URL) is an absolute URL that points neither at ``kep.k8s.io``
    nor into kubernetes/enhancements (``github.com/kubernetes/enhancements/...``, any case, with or without
    ``https://`` and ``www.``; ``raw.githubusercontent.com/kubernetes/enhancements/...``): another repository,
    another site, a ``mailto:``. A relative target (``#x``, ``page.md``, ``../keps/...``) is not elsewhere."""
    m = _ABSOLUTE_RE.match(target.strip().strip("<>"))
    if m is None:
        return False
    host = (m.group(1) if m.group(1) is not None else m.group(3) or "").lower().removeprefix("www.")
    path = m.group(2) if m.group(1) is not None else m.group(4) or ""
    if host == "kep.k8s.io":
        return False
    return not (host in ("github.com", "raw.githubusercontent.com") and _ENHANCEMENTS_PATH_RE.match(path))


def foreign_link(label: str, target: str) -> bool:
    """True when a link (its text ``label``, its ``target``) names no KEP of kubernetes/enhancements whatever
    its text says: the target is :func:`elsewhere` and the text does not name the repository itself (as
    ``kubernetes/enhancements#4671`` or as a KEP URL such as ``https://kep.k8s.io/4671``)."""
    label = _strip(label)
    qualified = re.match(r"^kubernetes/enhancements#", label, re.IGNORECASE) or _url(label) is not None
    return elsewhere(target) and not qualified


def reference_definitions(lines: Sequence[str]) -> dict[str, str]:
    """``{label: target}`` of the page's link reference definitions (``[kueue-1136]: https://...``, also
    inside a block quote), labels compared as CommonMark does (case-folded, inner spaces collapsed); the
    first definition of a label wins."""
    found: dict[str, str] = {}
    for line in lines:
        m = _DEFINITION_RE.match(line)
        if m:
            found.setdefault(_label_key(m.group(1)), m.group(2))
    return found


def foreign_reference(text: str, definitions: Mapping[str, str]) -> bool:
    """True when the KEP cell ``text`` starts with a reference link (``[KEP-1136][kueue]``, ``[KEP-1136][]`` or
    a defined ``[KEP-1136]``) whose definition points elsewhere (:func:`foreign_link`): it names no KEP of
    kubernetes/enhancements, as the same link written inline would not."""
    m = _REFERENCE_RE.match(_strip(text))
    if m is None:
        return False
    label, ref = m.group(1), m.group(2) or m.group(1)
    target = definitions.get(_label_key(ref))
    return target is not None and foreign_link(label, target)


def _label_key(label: str) -> str:
    return " ".join(label.split()).casefold()


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
    if not m or elsewhere(text):
        return None
    if m.group(3):
        return KepName(int(m.group(3)), m.group(4), False)
    return KepName(int(m.group(1) or m.group(2)), "", False)


def parse_kep_cell(text: str) -> tuple[int, str] | None:
    """``(number, slug)`` from a KEP cell in any form :func:`kep_name` reads (``4671-x``,
    ``[4671-x](url)``, ``KEP-4671``, ``KEP #4671``, ``#4671``, ``kubernetes/enhancements#4671``, a
    ``kep.k8s.io`` or tracking-issue link, as text or link target), else ``None``."""
    name = kep_name(text)
    return (name.number, name.slug) if name is not None else None


def name_in_cell(text: str) -> tuple[int, str] | None:
    """The KEP a row's KEP cell names even when kep-sync cannot use the row: :func:`parse_kep_cell` of the
    cell, else of the cell without HTML tags (``<b>3000-x</b>``, ``<a name="k"></a>3000-x`` -> ``(3000, "x")``),
    else the number the cell starts with after emphasis, ``#``, ``[`` and tags (``6200-evil\\|x``,
    ``~~6202-x~~ (moved)``, ``#3100`` -> ``(6200, "")``, ``(6202, "")``, ``(3100, "")``; not ``1.35``), else the
    KEP an enhancements issue, ``kep.k8s.io`` or ``keps/`` directory URL in the cell names
    (``https://github.com/kubernetes/enhancements/issues/3100`` -> ``(3100, "")``,
    ``.../keps/sig-node/4671-x`` -> ``(4671, "x")``); ``None`` when it names none of these, or when the cell
    starts with a link that points elsewhere than kubernetes/enhancements or ``kep.k8s.io``
    (:func:`elsewhere`: ``[KEP-1136](https://github.com/kubernetes-sigs/kueue/...) (old)``
    names another project's KEP)."""
    key = parse_kep_cell(text)
    if key is not None:
        return key
    lead = _LEADING_LINK_RE.match(text)
    if lead and (
        foreign_link(lead.group(1), lead.group(2)) if lead.group(2) is not None else foreign_link(lead[4], lead[3])
    ):
        return None
    bare = _TAG_RE.sub("", text).strip()
    key = parse_kep_cell(bare)
    if key is not None:
        return key
    m = _LEADING_KEP_RE.match(bare.lstrip("*_`~[#").strip())
    if m:
        return int(m.group(1)), ""
    for url in _KEP_URL_RE.finditer(text):
        start = max(text.rfind(c, 0, url.start()) for c in " \t(<\"'[]=") + 1
        if not elsewhere(text[start : url.end()]):
            return int(url.group(1)), url.group(2) or ""
    return None
