"""Markdown from text kep-sync did not write (kep.yaml titles, release notes, gate names, page cells, comments,
messages quoting inputs, file paths) that nothing in it can act: no HTML element, no mention, no issue
reference or autolink, no emphasis, link or image, no block, and the bot's own markers and ``|`` cells kept
whole; links to KEPs, kep.yaml files and release-note pull requests; collapsed blocks. Pure, standard library
only (:mod:`bot.step_summary` uses it).

The family: :func:`inline` (foreign text inside a line the bot writes), :func:`table_cell` (a whole cell),
:func:`line_start` (the first words of a list line), :func:`code` (foreign text as one code span),
:func:`code_block` (lines of it as a fenced block), :func:`html_text` (foreign text in raw HTML, such as a
``<summary>``). Rules read from CommonMark 0.31.2 (code spans, backslash escapes,
emphasis flanking) and GitHub's rendering (GFM autolinks; mentions and issue references are linked in text
outside ``code``, ``pre`` and ``a``): https://spec.commonmark.org/0.31.2/ and https://github.github.com/gfm/.
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection
from urllib.parse import quote

#: A handle: ``@login`` or ``@org/team``; dots inside count (``@jane.doe`` is one token, so its code span covers it
#: whole), a dot at the end does not (``thanks @jane.``). GitHub links one after any character but an ASCII
#: letter, digit or ``_``.
_HANDLE = (
    r"(?<![A-Za-z0-9_])@[A-Za-z0-9](?:[A-Za-z0-9-]|\.(?=[A-Za-z0-9]))*"
    r"(?:/[A-Za-z0-9](?:[A-Za-z0-9_-]|\.(?=[A-Za-z0-9_-]))*)?"
)
#: What GitHub turns into a link or a notification in text: a URL (``http://``, ``https://``, ``ftp://``,
#: ``www.``, up to a space, ``<``, ``>`` or a backtick), an e-mail address (GFM's extended autolink: the domain
#: ends in a letter), a handle, an issue reference ``#123`` or ``GH-123``. Each becomes a code span.
_LINKABLE_RE = re.compile(
    r"(?P<url>(?i:(?:https?|ftp)://|www\.)[^\s<>`]*)"
    r"|[A-Za-z0-9.+_-]+@[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.[A-Za-z0-9_-]*[A-Za-z]"
    rf"|{_HANDLE}"
    r"|(?:#|(?<![A-Za-z0-9_])(?i:gh-))[0-9]+(?![A-Za-z0-9_])"
)
#: A handle as the commit message's :func:`safe` wraps it (not in ``a@b``, ``/@x`` or after a backtick).
_HANDLE_RE = re.compile(r"(?<![\w/`])" + _HANDLE)

#: Characters that end a line in some renderer, invisible controls, and the bidirectional embeddings,
#: overrides and isolates (text after one can show reversed): never written raw.
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

#: Zero-width space: breaks an HTML comment opener or closer inside a code span (the raw body is read back
#: for the bot's markers), and keeps two code spans from touching (their backticks would join).
_ZWSP = "\u200b"

#: A run of backticks (a code span's fence, or a stray one).
_TICKS_RE = re.compile("`+")
#: A backslash and the character it escapes, or a run of backticks: where :func:`_segments` looks next.
_ESCAPE_OR_TICKS_RE = re.compile(r"\\.?|`+", re.DOTALL)

#: Plain-text characters replaced outright: HTML (entities), links and images (brackets), emphasis and
#: strikethrough (``*``, ``~``), GitHub's math (``$``), a stray backtick and a table's ``|`` (backslash escapes).
_REPLACE = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    "[": "\\[",
    "]": "\\]",
    "*": "\\*",
    "~": "\\~",
    "`": "\\`",
    "|": "\\|",
    "$": "\\$",
}
_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _clean(text: str) -> str:
    """Line breaks and controls as spaces; ``<!--`` and ``-->`` broken so no marker can be forged."""
    return no_comments(_CONTROL_RE.sub(" ", text))


def _segments(text: str) -> list[tuple[bool, str]]:
    """``text`` cut into ``(is_code_span, piece)`` as CommonMark reads its code spans: a backtick run not
    escaped by a backslash opens one, the next run of the same length closes it (no escapes inside); a run
    with no such closer is plain text."""
    out: list[tuple[bool, str]] = []
    start = pos = 0
    while (opener := _ESCAPE_OR_TICKS_RE.search(text, pos)) is not None:
        pos = opener.end()
        if opener.group()[0] == "\\":
            continue
        width = pos - opener.start()
        close = next((m.end() for m in _TICKS_RE.finditer(text, pos) if m.end() - m.start() == width), -1)
        if close < 0:
            continue
        if start < opener.start():
            out.append((False, text[start : opener.start()]))
        out.append((True, text[opener.start() : close]))
        start = pos = close
    if start < len(text):
        out.append((False, text[start:]))
    return out


def _plain(text: str) -> str:
    """Plain text (no code span in it) that renders as written: each character of :data:`_REPLACE` replaced,
    ``_`` escaped unless a letter or digit is on both sides, ``\\`` escaped before punctuation and at the end."""
    out = []
    for i, ch in enumerate(text):
        if ch == "\\":
            nxt = text[i + 1 : i + 2]
            out.append("\\\\" if not nxt or nxt in _PUNCT else ch)
        elif ch == "_":
            inner = 0 < i < len(text) - 1 and _word(text, i, -1) and _word(text, i, 1)
            out.append(ch if inner else "\\_")
        else:
            out.append(_REPLACE.get(ch, ch))
    return "".join(out)


def _word(text: str, i: int, step: int) -> bool:
    """Whether the first character other than ``_`` from ``i`` in direction ``step`` is a letter or digit."""
    while 0 <= i < len(text) and text[i] == "_":
        i += step
    return 0 <= i < len(text) and text[i].isalnum()


def _span(text: str) -> str:
    """One code span holding ``text`` exactly: a fence longer than any backtick run in it, padded with a space
    where CommonMark would otherwise take a space off or join a backtick to the fence."""
    fence = "`" * (max((len(m) for m in _TICKS_RE.findall(text)), default=0) + 1)
    pad = text[:1] == "`" or text[-1:] == "`" or (text[:1] == text[-1:] == " " and text.strip() != "")
    return f"{fence} {text} {fence}" if pad else f"{fence}{text}{fence}"


def _join(pieces: list[tuple[bool, str]]) -> str:
    """``(is_code_span, markdown)`` pieces joined, a zero-width space between two code spans (side by side
    their fences would make one backtick run)."""
    out: list[str] = []
    for i, (is_code, piece) in enumerate(pieces):
        if is_code and i and pieces[i - 1][0]:
            out.append(_ZWSP)
        out.append(piece)
    return "".join(out)


def inline(text: str, refs: Collection[int] = ()) -> str:
    r"""``text`` as inert markdown inside a line the bot writes (a table cell, a list line, link text), shown
    as written: its code spans kept as code spans (``|`` escaped inside them, as GFM tables need); outside
    them every URL, e-mail address, ``@handle`` and ``#123`` in a code span of its own (nobody is pinged, no
    link is made), ``<>&`` as entities, ``[]*~|$`` and a stray backtick backslash-escaped, ``_`` escaped where
    it could start or end emphasis, ``\`` escaped where it would escape. Line breaks and controls become
    spaces. Leading and trailing spaces are kept (see :func:`table_cell`). ``#N`` for a number in ``refs`` is
    the bot's own reference (a pull request it names) and is kept as written."""
    pieces: list[tuple[bool, str]] = []
    for is_code, piece in _segments(_clean(text)):
        if is_code:
            pieces.append((True, piece.replace("|", "\\|")))
            continue
        pieces += _wrapped(piece, refs)
    return _join(pieces)


def _wrapped(text: str, refs: Collection[int]) -> list[tuple[bool, str]]:
    """Plain ``text`` as pieces: each linkable (:func:`_linkables`) a code span, the text between them
    :func:`_plain`. The text between two is read again on its own: a code span ends GitHub's text run, so
    ``#12`` in ``#12http://x`` is linked once the URL is code."""
    spans = _linkables(text, refs)
    if not spans:
        return [(False, _plain(text))] if text else []
    out: list[tuple[bool, str]] = []
    pos = 0
    for start, end in spans:
        out += _wrapped(text[pos:start], refs)
        out.append((True, _span(text[start:end]).replace("|", "\\|")))
        pos = end
    return out + _wrapped(text[pos:], refs)


def _linkables(text: str, refs: Collection[int] = ()) -> list[tuple[int, int]]:
    """``(start, end)`` of each :data:`_LINKABLE_RE` match but ``#N`` with ``N`` in ``refs``; a URL without the trailing punctuation GFM leaves
    out of an autolink (``?!.,:*_~'"``, an unmatched ``)``), so ``(see http://x.example/a).`` keeps ``).``."""
    out, pos = [], 0
    while (m := _LINKABLE_RE.search(text, pos)) is not None:
        end = m.end()
        while m.group("url") and end > m.start() + 1:
            last = text[end - 1]
            unmatched = last == ")" and text.count("(", m.start(), end) < text.count(")", m.start(), end)
            if last not in "?!.,:*_~'\";" and not unmatched:
                break
            end -= 1
        if not (m.group()[:1] == "#" and int(m.group()[1:]) in refs):
            out.append((m.start(), end))
        pos = max(end, m.start() + 1)
    return out


def table_cell(text: str, refs: Collection[int] = ()) -> str:
    r"""``text`` as one table cell: :func:`inline` of the text without its leading and trailing spaces;
    ``""`` -> ``-``. The cell escaping of the changelog, the pull request body, the watch and the digest
    section (:mod:`bot.plan.digest`); ``refs`` as :func:`inline`."""
    text = _CONTROL_RE.sub(" ", text).strip()
    return inline(text, refs) if text else "-"


def line_start(text: str) -> str:
    r"""``text`` where it begins a list line (``- TEXT: ...``): :func:`table_cell`, and a leading ``#``, ``+``,
    ``-`` or ``1.`` that would open a heading or a list there escaped (``\- x``, ``1\. x``; ``""`` -> ``\-``)."""
    out = table_cell(text)
    if re.match(r"[-+#](?:\s|$)", out):
        return "\\" + out
    marker = re.match(r"[0-9]{1,9}(?=[.)](?:\s|$))", out)
    return out[: marker.end()] + "\\" + out[marker.end() :] if marker else out


def code(text: str, *, cell: bool = False) -> str:
    """``text`` as one inline code span, whatever backticks it holds (a backslash does not escape inside a
    code span; the fence is longer than any run in it); line breaks and controls as spaces; ``|`` escaped
    when the span sits in a table ``cell``."""
    out = _span(_clean(text) or " ")
    return out.replace("|", "\\|") if cell else out


def no_comments(text: str) -> str:
    """``text`` with every HTML comment opener ``<!--`` and closer ``-->`` broken by a zero-width space, so no
    marker of the bot (``<!-- kep-sync:... -->``) can be read in it; nothing else changes."""
    return text.replace("<!--", "<!-" + _ZWSP + "-").replace("-->", "-" + _ZWSP + "->")


def code_block(text: str) -> str:
    """``text`` (lines) as a fenced code block: the fence a backtick run longer than any in ``text`` (at least
    three), ``<!--`` and ``-->`` broken as everywhere (the raw text holds no marker)."""
    text = no_comments(text)
    fence = "`" * max(3, 1 + max((len(run) for run in _TICKS_RE.findall(text)), default=0))
    return f"{fence}\n{text}\n{fence}"


def html_text(text: str) -> str:
    """``text`` inside raw HTML (a ``<summary>``, where markdown is not read): entities for ``<>&``, and each
    URL, e-mail address, ``@handle`` and ``#123`` in ``<code>`` (GitHub links none inside it)."""
    text, out, pos = _clean(text), [], 0
    for m in _LINKABLE_RE.finditer(text):
        out += [html.escape(text[pos : m.start()], quote=False), f"<code>{html.escape(m.group(), quote=False)}</code>"]
        pos = m.end()
    return "".join(out) + html.escape(text[pos:], quote=False)


def safe(text: str) -> str:
    """Plain text (the commit message) with every ``@handle`` unable to ping: ``@handle`` -> ```@handle``` (a
    code span), or ``@`` and a zero-width space where the text has a backtick a new code span could pair
    with; handles already in a code span are left alone; ``<!--`` / ``-->`` broken with a zero-width space."""
    text = no_comments(text)
    if "@" not in text:
        return text
    return "".join(piece if is_code else _wrap_handles(piece) for is_code, piece in _segments(text))


def _wrap_handles(segment: str) -> str:
    """Handles outside code spans in code spans; a segment with a stray backtick gets the zero-width space."""
    if "`" in segment:
        return _HANDLE_RE.sub(lambda m: "@" + _ZWSP + m.group()[1:], segment)
    return _HANDLE_RE.sub(lambda m: f"`{m.group()}`", segment)


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
    from bot.plan.evidence.index import pr_url

    return f"[#{pr}]({pr_url(url, pr)})" if pr else ""


def short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def details(title: str, count: int | None, header: list[str]) -> list[str]:
    """Section header lines for a collapsed block: ``<details><summary>TITLE (COUNT)</summary>`` then
    ``header`` (the title is raw HTML there: :func:`html_text`); the changelog's body
    (:func:`bot.plan.changelog.body.render`) closes it with ``</details>``."""
    shown = f"{title} ({count})" if count is not None else title
    return [f"<details><summary>{html_text(shown)}</summary>", "", *header]
