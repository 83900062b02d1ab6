"""A page's YAML front matter date (``front_matter.date_key``): found only in a real block, rewritten in place.

Pure. A block is real only as YAML front matter is defined (Jekyll, Hugo, Pandoc): the page's
first line is ``---`` (after an optional BOM) and a later line is ``---`` or ``...`` (YAML's
document end), each alone on its line but for trailing blanks. A page that opens with a
thematic break (``---``) and never closes it has no front matter. Only a top-level ``key:``
line inside the block is read; the date is rewritten in the format the page wrote it
(``2026-01-15``, ``2026/01/15``, ``15.01.2026``, ``January 15, 2026``, ``15 Jan 2026``),
its quotes, trailing comment, spacing and ``\\r`` kept. A value in no such format (a time,
free text) is never overwritten: :func:`set_date` says why instead.
"""

from __future__ import annotations

import datetime
import re
from typing import NamedTuple

_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_YMD_RE = re.compile(r"^(\d{4})([-/.])(\d{1,2})\2(\d{1,2})$")
_DMY_RE = re.compile(r"^(\d{1,2})\.(\d{1,2})\.(\d{4})$")
_MONTH_FIRST_RE = re.compile(r"^([A-Za-z]+)\.? (\d{1,2}), (\d{4})$")
_DAY_FIRST_RE = re.compile(r"^(\d{1,2}) ([A-Za-z]+)\.? (\d{4})$")


class DateLine(NamedTuple):
    """The ``key:`` line of a front matter block: its ``line`` index (0-based) and the line split as
    ``head`` (key, colon, blanks, opening quote), ``value`` (the date as written) and ``tail``
    (closing quote, blanks, ``# comment``, ``\\r``)."""

    line: int
    head: str
    value: str
    tail: str


class DateUpdate(NamedTuple):
    """What :func:`set_date` did: the new ``lines``, the ``old`` and ``new`` value as written (``""``, ``""``
    when nothing changed) and ``problem``: why a value was kept (``""`` when none)."""

    lines: list[str]
    old: str
    new: str
    problem: str


def block_end(lines: list[str]) -> int | None:
    """Index of the line closing the front matter block of ``lines`` (a page split on ``\\n``), or ``None``
    when the page has no real block."""
    if not lines or lines[0].removeprefix("\ufeff").rstrip(" \t\r") != "---":
        return None
    return next((i for i in range(1, len(lines)) if lines[i].rstrip(" \t\r") in ("---", "...")), None)


def find_date(lines: list[str], key: str) -> DateLine | None:
    """The first top-level ``key:`` line inside the front matter block, or ``None`` (no block, no such key)."""
    found = find_dates(lines, key)
    return found[0] if found else None


def find_dates(lines: list[str], key: str) -> list[DateLine]:
    """Every top-level ``key:`` line inside the front matter block, in page order (``[]``: no block, no key)."""
    found = []
    for i in range(1, block_end(lines) or 0):
        date = _date_line(i, lines[i], key)
        if date is not None:
            found.append(date)
    return found


def near_keys(lines: list[str], key: str) -> list[str]:
    """``N: 'LINE'`` (1-based) of each top-level line in the front matter block whose key is ``key`` but for
    case or blanks before the colon (``Date:``, ``date :``): lines :func:`find_dates` does not read."""
    near = re.compile(rf"^{re.escape(key)}[ \t]*:(?:[ \t]|\r?$)", re.IGNORECASE)
    return [
        f"line {i + 1} {lines[i].rstrip(chr(13))!r}"
        for i in range(1, block_end(lines) or 0)
        if near.match(lines[i]) and _date_line(i, lines[i], key) is None
    ]


def _date_line(i: int, line: str, key: str) -> DateLine | None:
    """Line ``i`` split as a :class:`DateLine` when it is a top-level ``key:`` line, else ``None``."""
    if not line.startswith(f"{key}:"):
        return None
    rest = line[len(key) + 1 :]
    cr = "\r" if rest.endswith("\r") else ""
    rest = rest.removesuffix("\r")
    blanks = rest[: len(rest) - len(rest.lstrip(" \t"))]
    if rest and not blanks:  # "dates:" or "date:x" is another key or no mapping
        return None
    body = rest[len(blanks) :]
    if body[:1] in ("'", '"') and body.find(body[0], 1) > 0:
        close = body.find(body[0], 1)
        return DateLine(i, line[: len(key) + 1] + blanks + body[0], body[1:close], body[close:] + cr)
    comment = re.search(r"[ \t]#", body)
    value = body[: comment.start()] if comment else body
    plain = value.rstrip(" \t")
    return DateLine(i, line[: len(key) + 1] + (blanks or " "), plain, body[len(plain) :] + cr)


def set_date(lines: list[str], key: str, today: str) -> DateUpdate:
    """``lines`` with the front matter ``key`` set to ``today`` (``YYYY-MM-DD``) in the format of the value
    written there (``YYYY-MM-DD`` when it is empty); unchanged when there is no block or key, when the
    value already says ``today``, or when it is in no date format kep-sync can write, the key is given twice
    (YAML reads the last, so the value is ambiguous) or only spelt otherwise (``Date:``, ``date :``): then
    ``problem`` says so."""
    dates = find_dates(lines, key)
    if len(dates) > 1:
        where = " and ".join(str(d.line + 1) for d in dates)
        return DateUpdate(
            lines,
            "",
            "",
            f"{key}: given twice in the front matter (lines {where}); the value is ambiguous, so it is not written",
        )
    if not dates:
        near = near_keys(lines, key)
        return DateUpdate(
            lines,
            "",
            "",
            f"{key}: no {key + ':'!r} line in the front matter, only {', '.join(near)}; not written" if near else "",
        )
    found = dates[0]
    new = same_format(found.value, datetime.date.fromisoformat(today))
    if new is None:
        return DateUpdate(
            lines,
            "",
            "",
            f"{key}: {found.value!r} is not a date kep-sync can write in the same "
            "format (YYYY-MM-DD, DD.MM.YYYY, January 15, 2026, ...); kept",
        )
    if new == found.value:
        return DateUpdate(lines, "", "", "")
    out = list(lines)
    out[found.line] = found.head + new + found.tail
    return DateUpdate(out, found.value, new, "")


def same_format(value: str, day: datetime.date) -> str | None:
    """``day`` written like the date ``value`` (``2026/1/5`` -> ``2026/11/30``; ``Jan 15, 2026`` ->
    ``Nov 30, 2026``); ISO ``YYYY-MM-DD`` for an empty value; ``None`` when ``value`` is no date."""
    if not value.strip():
        return day.isoformat()
    m = _YMD_RE.match(value)
    if m:
        pad = _padded(m[3], m[4])
        return f"{day.year}{m[2]}{_num(day.month, pad)}{m[2]}{_num(day.day, pad)}"
    m = _DMY_RE.match(value)
    if m:
        pad = _padded(m[1], m[2])
        return f"{_num(day.day, pad)}.{_num(day.month, pad)}.{day.year}"
    m = _MONTH_FIRST_RE.match(value)
    if m and _month(m[1]):
        return (
            value[: m.start(1)]
            + _month(m[1], day.month)
            + value[m.end(1) : m.start(2)]
            + _num(day.day, m[2].startswith("0"))
            + ", "
            + str(day.year)
        )
    m = _DAY_FIRST_RE.match(value)
    if m and _month(m[2]):
        return (
            _num(day.day, m[1].startswith("0"))
            + " "
            + _month(m[2], day.month)
            + value[m.end(2) : m.start(3)]
            + str(day.year)
        )
    return None


def _padded(*written: str) -> bool:
    """True when the day/month numbers were ``written`` zero-padded (none of them a single digit)."""
    return all(len(w) == 2 for w in written)


def _num(n: int, pad: bool) -> str:
    return f"{n:02d}" if pad else str(n)


def _month(written: str, month: int = 0) -> str:
    """The name of ``month`` (1-12) spelled like ``written`` (full or three-letter, its case); with
    ``month`` 0: ``written`` itself when it names a month, else ``""``."""
    full = next((m for m in _MONTHS if m.casefold() == written.casefold()), None)
    short = next((m[:3] for m in _MONTHS if m[:3].casefold() == written.casefold()), None)
    if full is None and short is None:
        return ""
    if not month:
        return written
    name = _MONTHS[month - 1] if full else _MONTHS[month - 1][:3]
    return name.upper() if written.isupper() and len(written) > 1 else name.lower() if written.islower() else name
