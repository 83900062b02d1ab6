"""Markdown from upstream text that nothing in it can break: ``@handles`` wrapped in code spans (no one is
pinged), ``|`` escaped in table cells, no raw HTML, link or control character; links to KEPs, kep.yaml files
and release-note pull requests; collapsed blocks. Pure."""

from __future__ import annotations

import html
import re
from urllib.parse import quote

from bot.plan.evidence.index import pr_url

#: A handle: ``@login`` or ``@org/team``; dots inside count (``@jane.doe`` is one token, so its code span covers it
#: whole), a dot at the end does not (``thanks @jane.``).
_HANDLE_RE = re.compile(
    r"(?<![\w/`])@([A-Za-z0-9](?:[A-Za-z0-9-]|\.(?=[A-Za-z0-9]))*"
    r"(?:/[A-Za-z0-9](?:[A-Za-z0-9_-]|\.(?=[A-Za-z0-9_-]))*)?)"
)


_TICKS_RE = re.compile(r"`+")


#: Characters that end a line in some renderer or are invisible controls: never written raw into a cell.
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


#: Zero-width space, the fallback where a code span cannot be opened safely (Renovate does the same).
_ZWSP = "\u200b"


#: The brackets of a markdown link or image (``[text](url)``, ``![alt](src)``, ``[ref]``): escaped, no link or
#: image is left (``!\[`` opens none); one a backslash precedes is already escaped.
_LINK_MARK_RE = re.compile(r"(?<!\\)[\[\]]")


def safe(text: str) -> str:
    """Upstream text made safe for markdown: ``@handle`` -> ```@handle``` (a code span) so nobody is pinged,
    and ``<!--`` / ``-->`` broken with a zero-width space so no marker can be forged.

    Handles already inside a code span are left alone (GitHub does not link
    mentions in code). Where the text has a stray backtick that a new code
    span could pair with, the handle gets a zero-width space after ``@``
    instead. CommonMark code spans: https://spec.commonmark.org/0.31.2/#code-spans
    """
    # An HTML comment opener/closer from upstream could forge or close kep-sync's own markers.
    text = text.replace("<!--", "<!-\u200b-").replace("-->", "-\u200b->")
    if "@" not in text:
        return text
    out, pos = [], 0
    for start, end in _code_spans(text):
        out.append(_wrap_handles(text[pos:start]))
        out.append(text[start:end])
        pos = end
    out.append(_wrap_handles(text[pos:]))
    return "".join(out)


def _code_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each code span: a backtick run closed by the next run of the same length."""
    spans, runs = [], list(_TICKS_RE.finditer(text))
    i = 0
    while i < len(runs):
        close = next((j for j in range(i + 1, len(runs)) if len(runs[j].group()) == len(runs[i].group())), None)
        if close is None:
            i += 1
            continue
        spans.append((runs[i].start(), runs[close].end()))
        i = close + 1
    return spans


def _wrap_handles(segment: str) -> str:
    """Wrap handles outside code spans; a segment with a stray backtick gets the zero-width space instead."""
    if "`" in segment:
        return _HANDLE_RE.sub(lambda m: "@" + _ZWSP + m.group(1), segment)
    return _HANDLE_RE.sub(lambda m: f"`@{m.group(1)}`", segment)


def table_cell(text: str) -> str:
    r"""Upstream text for one table cell (or one list line), inert: every line break and control character
    (``\n``, a lone ``\r``, ``\t``, C0/C1 controls, U+2028/U+2029) becomes a space, handles are wrapped
    (:func:`safe`), ``<``/``>``/``&`` become entities outside code spans (no HTML), ``[`` and ``]``
    are backslash-escaped outside code spans (no link or image: ``![i](http://x/p.png)`` shows as text),
    ``|`` is escaped (``\|``, also inside code spans, as GFM tables need). ``""`` -> ``-``. The one cell
    escaping of the changelog, the pull request body and the digest section (:mod:`bot.plan.digest`)."""
    if not text:
        return "-"
    text = safe(_CONTROL_RE.sub(" ", text))
    out, pos = [], 0
    for start, end in _code_spans(text):
        out += [_inert(text[pos:start]), text[start:end]]
        pos = end
    out.append(_inert(text[pos:]))
    return "".join(out).replace("|", "\\|")


def _inert(text: str) -> str:
    r"""Markdown text outside code spans with no HTML, link or image: entities for ``<>&``, ``\[`` and ``\]``."""
    return _LINK_MARK_RE.sub(r"\\\g<0>", html.escape(text, quote=False))


def kep_link(ident: str) -> str:
    """``[4671](https://kep.k8s.io/4671)``; KEPs numbered 0000 have no tracking issue, so no link."""
    digits = re.match(r"\d+", ident)
    if not digits or int(digits.group()) == 0:
        return table_cell(ident)
    return f"[{table_cell(ident)}](https://kep.k8s.io/{int(digits.group())})"


def kep_yaml_url(web_url: str, revision: str, path: str) -> str:
    """Link to a kep.yaml at ``revision`` (a commit SHA); ``""`` when there is no revision or path. Both are
    percent-encoded (``/`` kept), so an upstream directory name holding ``|``, a space or ``)`` cannot break
    the link or the table it sits in."""
    return f"{web_url.rstrip('/')}/blob/{quote(revision, safe='')}/{quote(path)}" if revision and path else ""


def note_link(pr: int, url: str) -> str:
    """``[#N](url)`` for a release note's pull request, the url checked again by
    :func:`bot.plan.evidence.index.pr_url` (``github.com/OWNER/REPO/pull/N`` or the kubernetes/kubernetes one)."""
    return f"[#{pr}]({pr_url(url, pr)})" if pr else ""


def short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def details(title: str, count: int | None, header: list[str]) -> list[str]:
    """Section header lines for a collapsed block: ``<details><summary>TITLE (COUNT)</summary>`` then
    ``header``; the changelog's body (:func:`bot.plan.changelog.body.render`) closes it with ``</details>``."""
    shown = f"{title} ({count})" if count is not None else title
    return [f"<details><summary>{html.escape(shown, quote=False)}</summary>", "", *header]
