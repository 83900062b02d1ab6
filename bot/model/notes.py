"""The release notes one run has read (:class:`ReleaseNotes`), and the releases it needed but lacks.

Values only: :mod:`bot.sources.release_notes` fills a :class:`ReleaseNotes`;
:mod:`bot.plan.planner` adds the missing releases (:func:`with_missing`) and reviews against it.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import NamedTuple

from bot.model.kep import Problem
from bot.model.note_text import release_name, release_order


class ReleaseNotes(NamedTuple):
    """Release notes read for one run.

    - ``source``: printable source (no token);
    - ``available``: every release the source has (``vMAJOR.MINOR``), oldest first;
    - ``notes``: ``{release: {pr: entry}}`` for the releases read;
    - ``problems``: releases without notes, entries skipped, stale cache used;
    - ``skipped``: releases a problem already reports as skipped (their file was
      unusable, or :func:`with_missing` told it), so none is told twice.
    """

    source: str
    available: tuple[str, ...]
    notes: dict[str, dict[str, dict[str, object]]]
    problems: tuple[Problem, ...]
    skipped: frozenset[str] = frozenset()


def with_missing(notes: ReleaseNotes, wanted: Collection[str]) -> ReleaseNotes:
    """``notes`` plus one problem per release of ``wanted`` that has no notes in ``notes.notes``.

    ``wanted``: releases the run needs (``1.33``, ``v1.33``; non-releases
    ignored). A release later than the newest available one is not made yet
    and raises nothing; with nothing available every wanted release is
    reported. The problem (``path`` the source, no key) reads "release notes
    for v1.33 are not available from SOURCE; evidence and checks for v1.33
    were skipped". A release some problem already says was skipped (this
    function ran before, or its file could not be used) is not told again.
    """
    newest = max((release_order(r) for r in notes.available), default=None)
    problems, skipped = list(notes.problems), set(notes.skipped)
    for release in sorted({r for r in (release_name(w) for w in wanted) if r}, key=release_order):
        if release in notes.notes or release in skipped or (newest is not None and release_order(release) > newest):
            continue
        problems.append(
            Problem(
                notes.source,
                "",
                f"release notes for {release} are not available from {notes.source}; {skipped_tail(release)}",
            )
        )
        skipped.add(release)
    return notes._replace(problems=tuple(problems), skipped=frozenset(skipped))


def skipped_tail(release: str) -> str:
    """The tail of every problem that makes a run skip ``release``'s notes."""
    return f"evidence and checks for {release} were skipped"
