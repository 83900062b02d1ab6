"""The first-parent log of the kep.yaml files, and KEP lineages through renames. Pure.

A source (``bot/sources/history.py``) runs ``git log --first-parent --raw`` and
hands the text to :func:`parse_log`; everything here works on the values.
Merge subjects name the pull request: ``Merge pull request #6182 from ...``
(GitHub merge commits, whose body's first line is the pull request's title) or
``Title (#5893)`` (squash merges).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import NamedTuple

from bot.model.kep import is_template
from bot.model.snapshot import leading_number

#: ``git log`` format :func:`parse_log` reads: record separator, then SHA, first parent,
#: committer date (strict ISO 8601), subject and body separated by unit separators, then a group separator.
LOG_FORMAT = "%x1e%H%x1f%P%x1f%cI%x1f%s%x1f%b%x1d"
#: Blob id git writes for "no file" in ``--raw`` output.
NO_BLOB = "0" * 40
#: ``Commit.parent`` of a shallow clone's boundary commit: its parents are not in the clone, so git shows it
#: adding every file; nothing it "adds" can be credited to it (the value may be older).
SHALLOW = "(shallow)"
_MERGE_RE = re.compile(r"^Merge pull request #([0-9]{1,9})\b")
_SQUASH_RE = re.compile(r"\(#([0-9]{1,9})\)\s*$")


def utc_day(date: str) -> str:
    """``YYYY-MM-DD`` in UTC of an ISO 8601 commit date with its offset (``2026-04-07T05:59:00+09:00``:
    ``2026-04-06``); a date without an offset is taken as UTC; the first 10 characters of a date that does not
    parse; ``""`` for ``""``. Every day a pull request body or a watch prints is this one."""
    if not date:
        return ""
    try:
        when = datetime.fromisoformat(date)
    except ValueError:
        return date[:10]
    return (when.astimezone(UTC) if when.tzinfo else when).date().isoformat()


class FileChange(NamedTuple):
    """One kep.yaml changed by a commit against its first parent: ``status`` ``A`` / ``M`` / ``D``
    (``T`` and others are read as ``M``), repository-relative ``path``, ``old`` and ``new`` blob ids
    (:data:`NO_BLOB` for an added or deleted file)."""

    status: str
    path: str
    old: str
    new: str


class Commit(NamedTuple):
    """One first-parent commit: ``sha``, ``parent`` (first parent, ``""`` for a root, :data:`SHALLOW` for a shallow
    clone's boundary commit), committer ``date``
    (ISO 8601 as git prints it), ``subject`` (:func:`title`: the pull request's title for a merge commit), the
    ``pr`` number its first line names (0 when none) and its kep.yaml ``files``."""

    sha: str
    parent: str
    date: str
    subject: str
    pr: int
    files: tuple[FileChange, ...]


class Version(NamedTuple):
    """A kep.yaml as one commit left it: the ``commit``, the ``path`` and the ``blob`` (:data:`NO_BLOB` when
    deleted)."""

    commit: Commit
    path: str
    blob: str


def pr_number(subject: str) -> int:
    """The pull request a commit subject names: ``Merge pull request #N from ...`` or a trailing ``(#N)``; else 0."""
    m = _MERGE_RE.match(subject) or _SQUASH_RE.search(subject)
    return int(m.group(1)) if m else 0


def title(subject: str, body: str = "") -> str:
    """The subject a commit is shown with: for a GitHub merge commit (``Merge pull request #N from ...``) the
    first non-empty line of its ``body`` (the pull request's title) when it has one, else ``subject``."""
    if _MERGE_RE.match(subject):
        return next((line.strip() for line in body.split("\n") if line.strip()), subject)
    return subject


def message_subject(message: str) -> tuple[str, int]:
    """``(subject as :func:`title` gives it, pull request number)`` of a whole commit message."""
    first, _, body = message.partition("\n")
    return title(first, body), pr_number(first)


def parse_log(text: str) -> list[Commit]:
    """Commits, newest first, from ``git log --first-parent --raw --no-renames --no-abbrev --format=LOG_FORMAT``.

    Only ``.../kep.yaml`` entries are kept, and only commits with one; quoted
    paths (git quotes names with control characters) are skipped.
    """
    commits = []
    for record in text.split("\x1e"):
        if not record.strip():
            continue
        head, sep, rest = record.rpartition("\x1d")
        if not sep:  # without a body (an older format)
            head, _, rest = record.partition("\n")
        sha, parents, date, subject, body = (head.split("\x1f", 4) + ["", "", "", ""])[:5]
        files = []
        for line in rest.split("\n"):
            if not line.startswith(":") or "\t" not in line:
                continue
            meta, path = line.split("\t", 1)
            parts = meta.split()
            if len(parts) < 5 or not path.endswith("/kep.yaml") or path.startswith('"'):
                continue
            status = parts[4][:1] if parts[4][:1] in "AD" else "M"
            files.append(FileChange(status, path, parts[2], parts[3]))
        if files:  # a commit that changed only PRR files is not kep.yaml history
            commits.append(
                Commit(sha, parents.split(" ")[0], date, title(subject, body), pr_number(subject), tuple(files))
            )
    return commits


def kep_number(path: str) -> int | None:
    """The KEP number of a kep.yaml path from its directory name (``keps/sig-x/4671-y/kep.yaml`` -> 4671)."""
    parts = path.split("/")
    return leading_number(parts[-2]) if len(parts) >= 2 else None


def versions(log: list[Commit], path: str) -> list[Version]:
    """Every version of ``path`` on the first-parent line, oldest first, renames followed backwards.

    A kep.yaml added in the same commit that deleted another kep.yaml with the
    same KEP number continues that file's history (a rename or SIG move); the
    deleting commit appears once, as the added path's first version. A path
    deleted and later re-added keeps both lives (the deletion is a version
    with blob :data:`NO_BLOB` between them).
    """
    out: list[Version] = []
    wanted, stop = path, False
    for commit in log:  # newest first
        for change in commit.files:
            if change.path != wanted:
                continue
            out.append(Version(commit, change.path, change.new if change.status != "D" else NO_BLOB))
            if change.status == "A":
                old = _renamed_from(commit, change.path)
                if old is not None:
                    wanted = old
                elif commit.parent in ("", SHALLOW):
                    stop = True  # nothing older in this history
                # else the same path may have had an earlier life (deleted, later re-added): keep reading
            break
        if stop:
            break
    out.reverse()
    return out


def _renamed_from(commit: Commit, path: str) -> str | None:
    """The kep.yaml with the same KEP number that ``commit`` deleted while adding ``path``; ``None`` when none
    (or several, which is no rename one can trust)."""
    number = kep_number(path)
    gone = [c.path for c in commit.files if c.status == "D" and number is not None and kep_number(c.path) == number]
    return gone[0] if len(gone) == 1 else None


def paths_of(log: list[Commit], number: int) -> list[str]:
    """The kep.yaml paths with KEP ``number`` that exist at the newest commit of ``log`` (sorted), or, when the
    KEP was deleted, its last paths; from the log alone. The template directories are no KEPs and never
    listed (:func:`bot.model.kep.is_template`: ``0000-cloud-provider-template`` is not KEP 0)."""
    alive: dict[str, bool] = {}
    for commit in log:  # newest first: the first word on a path is its final state
        for change in commit.files:
            if kep_number(change.path) == number and change.path not in alive and not is_template(change.path):
                alive[change.path] = change.status != "D"
    current = sorted(p for p, ok in alive.items() if ok)
    return current or sorted(alive)


def renames(version_list: list[Version]) -> list[tuple[Version, str]]:
    """``(version, old path)`` for each version whose path differs from the one before it."""
    return [
        (v, version_list[i - 1].path)
        for i, v in enumerate(version_list)
        if i > 0 and v.path != version_list[i - 1].path
    ]
