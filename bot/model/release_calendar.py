"""The release team's records of one release cycle: its key dates (``releases/release-1.NN/README.md``) and its
freeze exceptions (``releases/release-1.NN/exceptions.yaml``) in ``kubernetes/sig-release``. Pure: text in,
:class:`Calendar` / :class:`FreezeException` and problems out.

Key dates (:data:`KEY_DATES`) are read from the README's "Summary" list (``- **DATE**: Week N — WHAT``), in every
format the release team used from 1.20 on: ``Monday, September 14th`` (no year: a problem, never a guessed
year), ``Monday, August 23, 2021``, ``Monday 10th January 2022``, ``02:00 UTC Friday 4th February 2022 / 18:00
PST Thursday 3rd February 2022`` (the UTC day is taken), the same inside a markdown link, ``Tuesday 16th June 2026
(AoE) / Wednesday 17th June 2026, 12:00 UTC`` (an AoE deadline is the day given), typos such as ``23th``,
``01st`` and ``26nd`` (the suffix is not checked), ranges (``Monday 24th - Friday 28th October 2022``: the
first day) and items wrapped onto a second line. A named weekday that is not the date's weekday, a day that
does not exist and a date with no year are problems naming the file and line; the date is then left out.

The day of each key date is ``YYYY-MM-DD`` in UTC. The Docs Freeze was called "Docs must be completed and
reviewed" up to 1.29; the Production Readiness Freeze "Production Readiness Soft Freeze" up to 1.25.
"""

from __future__ import annotations

import calendar
import datetime
import re
import textwrap
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import yaml

from bot.model import yamlload
from bot.model.kep import Problem

#: The key dates of a cycle, in cycle order, and how the reader names them.
KEY_DATES = ("started", "prr_freeze", "enhancements_freeze", "code_freeze", "docs_freeze", "release_day")
LABELS = {
    "started": "cycle began",
    "prr_freeze": "Production Readiness Freeze",
    "enhancements_freeze": "Enhancements Freeze",
    "code_freeze": "Code Freeze",
    "docs_freeze": "Docs Freeze",
    "release_day": "release day",
}
#: The kinds of freeze exception, as ``exceptions.yaml`` names them.
EXCEPTION_KINDS = ("enhancementFreeze", "codeFreeze", "docsFreeze")
#: The statuses of a freeze exception the reader takes (lower case); any other is a problem and read as none.
EXCEPTION_STATUSES = ("approved", "rejected", "denied", "removed", "pending", "withdrawn")


class KeyDate(NamedTuple):
    """One key date: ``name`` (of :data:`KEY_DATES`), ``day`` (``YYYY-MM-DD``, UTC), ``line`` (1-based, in
    ``Calendar.where``) and ``text``: the date as written (markdown removed)."""

    name: str
    day: str
    line: int
    text: str


class Calendar(NamedTuple):
    """The key dates of ``release`` (``v1.37``) read from ``where`` (``release-1.37/README.md``): ``{name:
    KeyDate}``, only those the file gives and that could be read."""

    release: str
    where: str
    dates: Mapping[str, KeyDate]

    def day(self, name: str) -> str:
        """The ``YYYY-MM-DD`` of key date ``name``; ``""`` when not read."""
        found = self.dates.get(name)
        return found.day if found else ""

    def named(self, name: str) -> str:
        """``"2026-07-22 (release-1.37/README.md)"``: the day with its source; ``""`` when not read."""
        found = self.dates.get(name)
        return f"{found.day} ({self.where})" if found else ""


class FreezeException(NamedTuple):
    """One freeze exception request: ``kep`` number (the ``issue``), ``kind`` (:data:`EXCEPTION_KINDS`),
    ``release``, ``name``, ``requested`` / ``reviewed`` (``YYYY-MM-DD`` as written, ``""``: none), ``status``
    (lower case, one of :data:`EXCEPTION_STATUSES`; ``""``: none or not one of them), ``thread`` (URL),
    ``where`` (``release-1.36/exceptions.yaml``) and ``line``."""

    kep: int
    kind: str
    release: str
    name: str
    requested: str
    reviewed: str
    status: str
    thread: str
    where: str
    line: int

    @property
    def granted(self) -> bool:
        """True when the release team approved it."""
        return self.status == "approved"

    def words(self) -> str:
        """``"v1.36 Enhancements Freeze exception rejected 2026-02-18 (release-1.36/exceptions.yaml)"``."""
        kind = {"enhancementFreeze": "Enhancements Freeze", "codeFreeze": "Code Freeze"}.get(self.kind, "Docs Freeze")
        when = f" {self.reviewed}" if self.reviewed else ""
        return f"{self.release} {kind} exception {self.status or 'requested'}{when} ({self.where})"


_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name}
_MONTHS["sept"] = 9
_WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
_WEEKDAYS |= {name.lower(): i for i, name in enumerate(calendar.day_abbr)}
_MONTH = r"(?P<month>[A-Za-z]{3,9})\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_WD = r"(?:(?P<weekday>[A-Za-z]{3,9}),?\s+)?"
#: ``Friday 4th February 2022``, ``4th - Friday 8th February`` (a range: first day, the month and year after it).
_DMY = re.compile(
    rf"{_WD}{_DAY}(?:\s*[-–]\s*(?:[A-Za-z]+,?\s+)?\d{{1,2}}(?:st|nd|rd|th)?)?\s+{_MONTH}(?:,?\s+(?P<year>\d{{4}}))?\b"
)
#: ``Monday, August 23, 2021``, ``Tuesday, Oct 6th``.
_MDY = re.compile(rf"{_WD}{_MONTH}\s+{_DAY}(?:,?\s+(?P<year>\d{{4}}))?\b")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_BARE_URL = re.compile(r"\(https?://[^)]*\)")
_REF_LINK = re.compile(r"\[([^\]]*)\]\[[^\]]*\]")
_WEEK = re.compile(r"\s*:?\s*Week\s+\d+\s*[—–-]+\s*")


def plain(text: str) -> str:
    """``text`` without markdown emphasis and links (``[x](url)``, ``[x][ref]`` and a stray ``(url)``)."""
    text = _LINK.sub(r"\1", text)
    text = _REF_LINK.sub(r"\1", text)
    text = _BARE_URL.sub("", text)
    return " ".join(text.replace("**", "").replace("__", "").split())


def key_date_of(label: str) -> str:
    """The key date a Summary item's label names (``"[Code Freeze] and [Test Freeze]"``: ``code_freeze``);
    ``""`` for other items (Test Freeze, feature blog freeze, KubeCon, retrospectives)."""
    text = plain(label).lower()
    if text.startswith("release cycle begins"):
        return "started"
    if text.startswith("production readiness"):
        return "prr_freeze"
    if text.startswith("enhancements freeze"):
        return "enhancements_freeze"
    if text.startswith("code freeze"):
        return "code_freeze"
    if text.startswith("docs freeze") or text.startswith("docs must be completed"):
        return "docs_freeze"
    if re.match(r"kubernetes v?\d+\.\d+(\.0)? released", text):
        return "release_day"
    return ""


def parse_day(text: str) -> tuple[str, str]:
    """``(YYYY-MM-DD, "")`` for one date as the release team wrote it (markdown removed, see the module
    docstring), or ``("", why)``. Alternatives split by `` / ``: the one marked ``(AoE)``, else the one in
    ``UTC``, else the only one."""
    parts = [p.strip() for p in text.split(" / ") if p.strip()]
    pick = next((p for p in parts if "(aoe)" in p.lower()), None)
    pick = pick or next((p for p in parts if re.search(r"\bUTC\b", p)), None) or (parts[0] if parts else "")
    if len(parts) > 1 and "(aoe)" not in pick.lower() and not re.search(r"\bUTC\b", pick):
        return "", f"{len(parts)} dates and none in UTC or AoE: {text!r}"
    pick = re.sub(r"\d{1,2}:\d{2}\s*[A-Z]{2,4}\b|\(AoE\)|,\s*\d{1,2}:\d{2}\s*UTC", " ", pick, flags=re.I)
    for pattern in (_DMY, _MDY):
        for m in pattern.finditer(pick):
            month = _MONTHS.get(m.group("month").lower())
            if month is None:
                continue
            if not m.group("year"):
                return "", f"no year in {text!r}"
            try:
                day = datetime.date(int(m.group("year")), month, int(m.group("day")))
            except ValueError:
                return "", f"no such day: {text!r}"
            weekday = (m.group("weekday") or "").lower()
            if weekday in _WEEKDAYS and _WEEKDAYS[weekday] != day.weekday():
                return "", f"{day.isoformat()} is a {calendar.day_name[day.weekday()]}, not {m.group('weekday')}"
            return day.isoformat(), ""
    return "", f"no date in {text!r}"


def summary_items(text: str) -> list[tuple[int, str]]:
    """``[(line, item)]``: the bullets of the README's Summary list (from the line saying "release cycle is"
    to the next heading or table), an item wrapped onto indented lines joined into one."""
    items: list[tuple[int, str]] = []
    inside = False
    for number, line in enumerate(text.splitlines(), 1):
        if not inside:
            inside = "release cycle is" in line.lower()
            continue
        if line.startswith(("#", "|")):
            break
        if line.startswith(("- ", "* ")):
            items.append((number, line[2:].strip()))
        elif line.startswith((" ", "\t")) and line.strip() and items:
            items[-1] = (items[-1][0], f"{items[-1][1]} {line.strip()}")
    return items


#: Key dates that follow one another in every cycle: each on or after the one before.
ORDERED = ("started", "enhancements_freeze", "code_freeze", "release_day")


def parse_calendar(release: str, where: str, text: str) -> tuple[Calendar, list[Problem]]:
    """The key dates of ``release`` from its README ``text`` (``where``: its path for problems), see the module
    docstring; a README with no Summary list is one problem. A key date given again on another line with another
    day is a problem naming both lines, and neither day is used; a key date of :data:`ORDERED` before one read
    earlier in that order (a Code Freeze before the Enhancements Freeze) is a problem naming its line, and it is
    not used."""
    items = summary_items(text)
    problems = []
    if not items:
        problems.append(
            Problem(where, "", "no Summary list of key dates (a line saying 'release cycle is' and bullets)")
        )
    dates: dict[str, KeyDate] = {}
    conflicting: set[str] = set()
    for line, item in items:
        parts = _WEEK.split(item, maxsplit=1)
        if len(parts) != 2:
            continue
        name = key_date_of(parts[1])
        if not name or name in conflicting:
            continue
        written = plain(parts[0]).rstrip(" :")
        day, why = parse_day(written)
        first = dates.get(name)
        if first is not None:
            if day and day != first.day:
                problems.append(
                    Problem(
                        where,
                        f"line {line}",
                        f"{LABELS[name]}: {day} here, {first.day} on line {first.line}; neither is used",
                    )
                )
                conflicting.add(name)
                del dates[name]
        elif day:
            dates[name] = KeyDate(name, day, line, written)
        else:
            problems.append(Problem(where, f"line {line}", f"{LABELS[name]}: {why}; not read"))
    last: KeyDate | None = None
    for name in ORDERED:
        found = dates.get(name)
        if found is None:
            continue
        if last is not None and found.day < last.day:
            problems.append(
                Problem(
                    where,
                    f"line {found.line}",
                    f"{LABELS[name]} {found.day} is before the {LABELS[last.name]} {last.day} (line {last.line}); "
                    "not used",
                )
            )
            del dates[name]
            continue
        last = found
    return Calendar(release, where, dates), problems


_KIND_LINE = (
    (re.compile(r"^enhancementFreeze:|^#\s*Enhancements? Freeze Exception", re.I), "enhancementFreeze"),
    (re.compile(r"^codeFreeze:|^#\s*Code Freeze Exception", re.I), "codeFreeze"),
    (re.compile(r"^docsFreeze:|^#\s*Docs Freeze Exception", re.I), "docsFreeze"),
)
_INVISIBLE = "\u200b\ufeff\u2060"
#: The text fields of an exception, as ``exceptions.yaml`` names them.
_TEXT_FIELDS = ("name", "date_requested", "date_reviewed", "thread", "status")
_EVENT_LOADER = getattr(yaml, "CBaseLoader", yaml.BaseLoader)


def parse_exceptions(release: str, where: str, text: str) -> tuple[list[FreezeException], list[Problem]]:
    """The freeze exceptions of ``release`` from ``exceptions.yaml`` ``text`` (``where``: its path).

    Read with the string-only YAML loader (:mod:`bot.model.yamlload`), in both shapes: a mapping of
    ``enhancementFreeze:`` / ``codeFreeze:`` / ``docsFreeze:`` lists, and (up to 1.24) one list split by
    ``# Enhancements Freeze Exceptions ...`` / ``# Code Freeze Exceptions ...`` comments; lines holding only
    invisible characters (U+200B) are blank. Each item must be a mapping with a numeric ``issue`` and text
    ``name``, ``status``, ``date_requested``, ``date_reviewed``, ``thread``. Problems, each naming the file and
    line: an item that is not a mapping, has no KEP number or comes before any kind (left out); a field that is
    not text (read as none); a ``status`` not in :data:`EXCEPTION_STATUSES` (read as none); another top-level
    key or shape. A file that is not YAML is read item by item (``- name:`` or ``-`` at the line start to the
    next), so one broken item (a trailing comma in 1.20) is a problem naming its line and the others count."""
    lines = ["" if not raw.strip(_INVISIBLE + " \t") else raw for raw in text.splitlines()]
    clean = "\n".join(lines) + "\n"
    kinds = _kinds_by_line(lines)
    problems: list[Problem] = []
    try:
        doc, _ = yamlload.load(clean)
        starts = _item_lines(clean)
    except (yaml.YAMLError, RecursionError) as exc:
        return _by_item(release, where, lines, kinds, _why(exc))
    items: list[tuple[int, str, object]] = []
    if isinstance(doc, dict):
        at = iter(starts)
        for key, value in doc.items():
            listed = value if isinstance(value, list) else []
            under = [(next(at, 0), str(key), item) for item in listed]
            if key in EXCEPTION_KINDS:
                items += under
                if value not in (None, "") and not isinstance(value, list):  # an empty key: no exceptions
                    problems.append(Problem(where, f"key {key}", "not a list of exceptions; not read"))
            else:
                problems.append(Problem(where, f"key {key}", f"not a freeze ({', '.join(EXCEPTION_KINDS)}); not read"))
    elif isinstance(doc, list):
        items = [(line, kinds.get(line, ""), item) for line, item in zip(starts, doc, strict=False)]
    elif doc is not None:
        problems.append(Problem(where, "line 1", "not a list of exceptions nor a mapping of freezes; not read"))
    out = []
    for line, kind, item in items:
        found = _exception(release, where, line, kind, item, problems)
        if found is not None:
            out.append(found)
    return out, problems


def _why(exc: BaseException) -> str:
    """The first line of a YAML error, with its line when PyYAML gives one."""
    mark = getattr(exc, "problem_mark", None)
    why = str(getattr(exc, "problem", "") or exc).split("\n")[0]
    return f"{why}, line {mark.line + 1}" if mark is not None else why


def _kinds_by_line(lines: Sequence[str]) -> dict[int, str]:
    """``{line: kind}``: the freeze named by the last kind line (key or comment) at or above each line."""
    kind, out = "", {}
    for number, line in enumerate(lines, 1):
        kind = next((k for pattern, k in _KIND_LINE if pattern.match(line)), kind)
        out[number] = kind
    return out


def _item_lines(text: str) -> list[int]:
    """The line (1-based) of each item of the top-level list, or of each list a top-level key holds, in order
    (PyYAML's events: the string-only parser, no value built)."""
    found: list[int] = []
    stack: list[bool] = []  # per open collection: is it a sequence
    for event in yaml.parse(text, Loader=_EVENT_LOADER):
        if isinstance(event, yaml.NodeEvent | yaml.CollectionStartEvent):
            if stack and stack[-1] and (len(stack) == 1 or (len(stack) == 2 and not stack[0])):
                found.append(event.start_mark.line + 1 if event.start_mark is not None else 0)
            if isinstance(event, yaml.CollectionStartEvent):
                stack.append(isinstance(event, yaml.SequenceStartEvent))
        elif isinstance(event, yaml.CollectionEndEvent):
            stack.pop()
    return found


def _by_item(
    release: str, where: str, lines: Sequence[str], kinds: Mapping[int, str], why: str
) -> tuple[list[FreezeException], list[Problem]]:
    """The exceptions of a file that is not YAML as a whole, each item (``- name:`` or ``-`` at the line start
    to the next kind line, item or top-level line) parsed on its own."""
    chunks: list[tuple[int, list[str]]] = []
    for number, line in enumerate(lines, 1):
        if any(pattern.match(line) for pattern, _ in _KIND_LINE):
            chunks.append((0, []))  # closes the item before it
        elif re.match(r"^-\s|^\s*-\s+name\s*:", line):
            chunks.append((number, [line]))
        elif chunks and chunks[-1][0] and not re.match(r"^[A-Za-z#]", line):
            chunks[-1][1].append(line)
    out: list[FreezeException] = []
    problems: list[Problem] = []
    broken = False
    for number, chunk in chunks:
        if not number:
            continue
        try:
            doc, _ = yamlload.load(textwrap.dedent("\n".join(chunk)))
        except (yaml.YAMLError, RecursionError) as exc:
            why_item = str(getattr(exc, "problem", "") or exc).split("\n")[0]  # its line is the item's own
            problems.append(Problem(where, f"line {number}", f"exception not read: not YAML ({why_item})"))
            broken = True
            continue
        item = doc[0] if isinstance(doc, list) and len(doc) == 1 else doc
        found = _exception(release, where, number, kinds.get(number, ""), item, problems)
        if found is not None:
            out.append(found)
    if not broken:
        problems.insert(0, Problem(where, "", f"not YAML ({why}); read item by item"))
    return out, problems


def _exception(
    release: str, where: str, line: int, kind: str, item: object, problems: list[Problem]
) -> FreezeException | None:
    """The exception of one ``item`` (at ``line``, of freeze ``kind``); ``None`` (a problem added) when it is not
    a mapping, has no KEP number or no kind. A field that is not text, or a status not known, is a problem and
    read as none."""
    at = f"line {line}"
    if not isinstance(item, dict):
        problems.append(Problem(where, at, f"exception not read: {_shown(item)}, not a mapping of name, issue, status"))
        return None
    issue = item.get("issue")
    number = issue.strip() if isinstance(issue, str) else ""
    if not number.isdigit():
        shown = repr(number) if isinstance(issue, str) else _shown(issue)
        problems.append(Problem(where, at, f"exception not read: no KEP number (issue {shown})"))
        return None
    if not kind:
        problems.append(Problem(where, at, f"exception of KEP {number} not read: no freeze named"))
        return None
    fields = {}
    for key in _TEXT_FIELDS:
        value = item.get(key)
        if value is not None and not isinstance(value, str):
            problems.append(
                Problem(where, at, f"exception of KEP {number}: {key} is {_shown(value)}, not text; read as none")
            )
            value = None
        fields[key] = (value or "").strip()
    status = fields["status"].lower()
    if status and status not in EXCEPTION_STATUSES:
        known = ", ".join(EXCEPTION_STATUSES)
        problems.append(Problem(where, at, f"exception of KEP {number}: status not one of {known}; read as none"))
        status = ""
    return FreezeException(
        int(number),
        kind,
        release,
        fields["name"],
        fields["date_requested"],
        fields["date_reviewed"],
        status,
        fields["thread"],
        where,
        line,
    )


def _shown(value: object) -> str:
    """What a YAML value is, in words (``a list``, ``a mapping``, ``none``), never its Python repr."""
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "none" if value is None else "text"


class Records(NamedTuple):
    """The release team's records read from ``source``: ``calendars`` ``{release: Calendar}``, ``exceptions``
    ``{release: (FreezeException, ...)}``, and ``problems`` (files or dates that could not be read)."""

    source: str
    calendars: Mapping[str, Calendar]
    exceptions: Mapping[str, Sequence[FreezeException]]
    problems: Sequence[Problem] = ()

    def of_kep(self, number: int, release: str = "") -> list[FreezeException]:
        """The exceptions requested for KEP ``number`` (in ``release`` only, when given), oldest release first."""
        from bot.model.note_text import release_order

        keys = [release] if release else sorted(self.exceptions, key=release_order)
        return [e for r in keys for e in self.exceptions.get(r, ()) if e.kep == number]
