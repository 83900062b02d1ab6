"""A second, independent reading of markdown kep-sync writes, as GitHub would show it: what in it acts.

The markdown is rendered by markdown-it-py (CommonMark with raw HTML on, plus GFM tables and strikethrough)
and the HTML read back with the standard library's parser; then, in every text run outside ``code``, ``pre``
and ``a`` (where GitHub links nothing), GitHub's own linking is looked for with rules written here from its
documentation, not from kep-sync's escaping: a mention (``@login``, ``@org/team`` after anything but a letter,
digit or ``_``), an issue reference (``#123``, ``GH-123``), an autolink (``http://``, ``https://``, ``ftp://``,
``www.`` and e-mail addresses, GFM's extended autolinks; markdown-it-py's linkify needs a package kep-sync
does not install, so they are found here). https://github.github.com/gfm/#autolinks-extension-
"""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser
from typing import NamedTuple

from markdown_it import MarkdownIt

MD = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])

#: What GitHub links or notifies in a text run (not inside code, pre or a link).
LIVE = {
    "mention": re.compile(r"(?<![A-Za-z0-9_])@[A-Za-z0-9][A-Za-z0-9-]*(?:/[A-Za-z0-9][A-Za-z0-9_-]*)?"),
    "reference": re.compile(r"(?<![A-Za-z0-9_])(?:#|[Gg][Hh]-)[0-9]+(?![A-Za-z0-9_])"),
    "url": re.compile(r"(?i)(?:https?|ftp)://[^\s<]+|(?<![A-Za-z0-9])www\.[A-Za-z0-9]"),
    "email": re.compile(r"[A-Za-z0-9._+-]+@[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+"),
}
_QUIET = {"code", "pre", "a"}


class Reading(NamedTuple):
    """``tags``: each start tag (``"td"``) and end tag (``"/td"``) counted; ``hrefs`` of the links, ``srcs`` of
    anything with a ``src``, in order; ``comments``: HTML comments; ``live``: ``(kind, text)`` of each thing
    GitHub would link or notify (:data:`LIVE`)."""

    tags: Counter[str]
    hrefs: tuple[str, ...]
    srcs: tuple[str, ...]
    comments: int
    live: Counter[tuple[str, str]]


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: Counter[str] = Counter()
        self.hrefs: list[str] = []
        self.srcs: list[str] = []
        self.comments = 0
        self.open: list[str] = []
        self.runs: list[str] = []
        self.run = ""

    def _flush(self) -> None:
        if self.run:
            self.runs.append(self.run)
        self.run = ""

    def handle_starttag(self, tag, attrs):
        self._flush()
        self.tags[tag] += 1
        attrs = dict(attrs)
        if "href" in attrs:
            self.hrefs.append(attrs["href"] or "")
        if "src" in attrs:
            self.srcs.append(attrs["src"] or "")
        if tag not in ("br", "hr", "img", "input"):
            self.open.append(tag)

    def handle_endtag(self, tag):
        self._flush()
        self.tags["/" + tag] += 1
        if tag in self.open:
            while self.open.pop() != tag:
                pass

    def handle_comment(self, data):
        self._flush()
        self.comments += 1

    def handle_data(self, data):
        if not _QUIET.intersection(self.open):
            self.run += data
        else:
            self._flush()


def read(markdown: str) -> Reading:
    """The :class:`Reading` of ``markdown`` rendered."""
    reader = _Reader()
    reader.feed(MD.render(markdown))
    reader.close()
    reader._flush()
    live: Counter[tuple[str, str]] = Counter()
    for run in reader.runs:
        for kind, pattern in LIVE.items():
            live.update((kind, m.group()) for m in pattern.finditer(run))
    return Reading(reader.tags, tuple(reader.hrefs), tuple(reader.srcs), reader.comments, live)
