"""``kep-sync history N``: the timeline of one KEP's kep.yaml, oldest first. Pure.

Built from the versions of the file (renames and SIG moves followed) and the
tracked fields of each version: one :class:`Event` per field a commit changed,
plus the path itself when the directory was renamed or moved to another SIG.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from bot.model.history.fields import TRACKED
from bot.model.history.log import NO_BLOB, SHALLOW, Commit, Version

#: Event field for the kep.yaml path (created, renamed, moved to another SIG, deleted).
PATH = "path"
#: Event field for a version whose kep.yaml could not be parsed (its values are skipped).
UNREADABLE = "kep.yaml"
#: Event field for a shallow clone's boundary commit: nothing older is known; its values follow as ``? -> value``.
BOUNDARY = "history"


class Event(NamedTuple):
    """One change in a KEP's history: the commit (``commit`` SHA, committer ``date``, ``pr``, ``subject``),
    the ``path`` of the kep.yaml after it, the ``field`` (:data:`TRACKED`, :data:`PATH` or :data:`UNREADABLE`)
    and its ``old`` and ``new`` values (``""`` for none)."""

    commit: str
    date: str
    pr: int
    subject: str
    path: str
    field: str
    old: str
    new: str


def events(timeline: Sequence[tuple[Version, Mapping[str, str] | None]]) -> list[Event]:
    """Every change of a tracked field or of the path, oldest first.

    ``timeline``: ``(version, tracked fields or None)`` oldest first. The first
    version gives ``"" -> value`` events for its path and non-empty fields; a
    deleted file gives ``path -> ""``; an unreadable version gives one
    :data:`UNREADABLE` event and later versions compare with the last readable one.
    A first version at a shallow clone's boundary commit is no creation: one
    :data:`BOUNDARY` event ("history before COMMIT not available"), then its
    non-empty fields as ``"?" -> value``.
    """
    out: list[Event] = []
    last: Mapping[str, str] = {}
    last_path = ""
    for version, fields in timeline:
        c = version.commit

        def add(field: str, old: str, new: str, path: str = version.path, c: Commit = c) -> None:
            out.append(Event(c.sha, c.date, c.pr, c.subject, path, field, old, new))

        if version.blob == NO_BLOB:
            add(PATH, last_path, "", last_path)
            last, last_path = {}, ""
            continue
        if version.commit.parent == SHALLOW and not last_path:
            add(BOUNDARY, "", f"history before {c.sha[:12]} not available (shallow clone)")
            last, last_path = {f: "?" for f in TRACKED}, version.path
        if version.path != last_path:
            add(PATH, last_path, version.path)
            last_path = version.path
        if fields is None:
            add(UNREADABLE, "", "not readable; values skipped")
            continue
        for field in TRACKED:
            if fields.get(field, "") != last.get(field, "") and (fields.get(field) or last.get(field) != "?"):
                add(field, last.get(field, ""), fields.get(field, ""))
        last = fields
    return out


def render_text(number: int, sections: Sequence[tuple[str, Sequence[Event]]]) -> str:
    """The timeline as text: per kep.yaml path a heading, then ``DATE  #PR  SHA12  field: old -> new`` lines.

    The heading names ``KEP 4671``; when several KEPs share the number (``0000-kep-process`` and
    ``0000-community-forum`` are both 0), each is named by its directory instead (``KEP 0000-kep-process``).
    """
    lines = []
    shared = len({path.rsplit("/", 2)[-2] for path, _ in sections}) > 1
    for path, evs in sections:
        name = path.rsplit("/", 2)[-2] if shared and path.count("/") >= 2 else str(number)
        lines.append(f"KEP {name}: {path} ({len(evs)} change{'s' if len(evs) != 1 else ''})")
        for e in evs:
            pr = f"#{e.pr}" if e.pr else "-"
            lines.append(f"{e.date[:10]}  {pr:>6}  {e.commit[:12]}  {e.field}: {e.old or '-'} -> {e.new or '-'}")
        lines.append("")
    return "\n".join(lines)


def as_json(sections: Sequence[tuple[str, Sequence[Event]]]) -> list[dict[str, object]]:
    """Every event of every section as ``{"commit", "date", "pr", "subject", "path", "field", "old", "new"}``."""
    return [e._asdict() for _, evs in sections for e in evs]
