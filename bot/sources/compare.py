"""What a GitHub compare answer says about ``keps/``: each file's status read by what it means for both paths.

GitHub's ``diff-entry`` (REST "Compare two commits", ``files[]``) has a ``filename``, a ``status`` and the blob
``sha`` of the file at the head; ``renamed`` and ``copied`` entries also name the ``previous_filename``:

=============  ===========================================  ==================================================
status         ``filename`` at the head                     ``previous_filename``
=============  ===========================================  ==================================================
``added``      exists, blob ``sha``                         (none)
``removed``    gone                                         (none)
``modified``   exists, blob ``sha``, its mode kept          (none)
``renamed``    exists, blob ``sha``, the old file's mode    gone
``copied``     exists, blob ``sha``, the source's mode      unchanged: the source stays, as it was
``changed``    exists, blob ``sha``, its type changed       (none)
``unchanged``  exists, blob ``sha``, as it was              (none)
=============  ===========================================  ==================================================

GitHub lists at most :data:`MAX_COMPARE_FILES` files ("up to 300 changed files for the entire comparison",
on the first page only). Anything else is unexpected and makes :func:`listed_changes` answer ``None`` (read the
tarball), never a deletion: a list of that many entries (it may be cut), an entry that is not an object, a
missing or non-string ``filename`` or ``status``, an unknown status, a ``previous_filename`` missing from a
rename or copy or given to another status, a missing blob ``sha`` for a file under ``keps/`` that exists, one
path given two different blob ids, and a ``changed`` file under ``keps/`` (its new type, a symbolic link or a
submodule, is not in the answer and decides what a full read makes of it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple, TypeGuard

from bot.sources.tarball import SHA_RE

#: A compare listing this many files may be cut short by GitHub (its documented limit): read the tarball.
MAX_COMPARE_FILES = 300
#: The mode a file gets when the answer names none (a new file): a regular file.
NEW_FILE_MODE = "100644"

_EXISTS = {"added", "modified", "renamed", "copied", "changed", "unchanged"}
_WITH_PREVIOUS = {"renamed", "copied"}


class Listed(NamedTuple):
    """The changes under ``keps/`` of one compare: ``present`` ``{path: (blob id, path whose mode it keeps or
    "")}`` for files that exist at the head, ``gone`` paths that do not, and ``touched``: the paths whose
    content or existence changed (a copy's source and an ``unchanged`` file are not touched)."""

    present: dict[str, tuple[str, str]]
    gone: frozenset[str]
    touched: frozenset[str]

    def apply(self, listing: Mapping[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
        """``listing`` (``{path: (mode, blob id)}`` at the base) changed to the head: gone paths dropped,
        present ones set, each with the mode of the path it keeps it from (:data:`NEW_FILE_MODE` when none)."""
        out = {p: v for p, v in listing.items() if p not in self.gone}
        for path, (sha, mode_of) in self.present.items():
            out[path] = (listing[mode_of][0] if mode_of in listing else NEW_FILE_MODE, sha)
        return out


def _under_keps(path: object) -> TypeGuard[str]:
    return isinstance(path, str) and path.startswith("keps/")


def listed_changes(entries: object) -> Listed | None:
    """:class:`Listed` of a compare answer's ``files`` (see the module docstring); ``None`` when the answer is
    not one to rely on: read the tarball."""
    if not isinstance(entries, list) or len(entries) >= MAX_COMPARE_FILES:
        return None
    present: dict[str, tuple[str, str]] = {}
    gone: set[str] = set()
    touched: set[str] = set()
    for entry in entries:
        if not isinstance(entry, dict):
            return None
        path, status, previous, sha = (entry.get(k) for k in ("filename", "status", "previous_filename", "sha"))
        if not (isinstance(path, str) and path and isinstance(status, str)):
            return None
        if status not in _EXISTS and status != "removed":
            return None
        if not isinstance(previous, str | None) or previous == "":
            return None
        if (status in _WITH_PREVIOUS) != (previous is not None):
            return None
        if status == "changed" and _under_keps(path):
            return None
        if status == "renamed" and _under_keps(previous):
            gone.add(previous)
            touched.add(previous)
        if not _under_keps(path):
            continue
        if status == "removed":
            gone.add(path)
            touched.add(path)
            continue
        if not (isinstance(sha, str) and SHA_RE.fullmatch(sha)):
            return None
        mode_of = previous if status in _WITH_PREVIOUS else "" if status == "added" else path
        if path in present and present[path][0] != sha:
            return None
        present[path] = (sha, mode_of or "")
        if status != "unchanged":
            touched.add(path)
    return Listed(present, frozenset(gone - set(present)), frozenset(touched))
