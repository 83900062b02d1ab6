"""How tests/fakegithub/ lists the files of a compare: GitHub's ``diff-entry`` statuses between two trees.

GitHub's REST description ("Compare two commits", schema ``diff-entry``) gives each changed file a ``status``
of ``added``, ``removed``, ``modified``, ``renamed``, ``copied``, ``changed`` or ``unchanged``, a
``previous_filename`` for a rename (and a copy), and lists "up to 300 changed files for the entire comparison".
:class:`CompareStyle` picks which of the statuses a test's answers use, as git's diff options do at GitHub:

    fake.compare_style = CompareStyle(copies=True, unchanged=("keps/sig-a/1-x/kep.yaml",))
"""

from __future__ import annotations

from typing import NamedTuple

#: GitHub's cap on the files of one compare answer.
MAX_FILES = 300


class CompareStyle(NamedTuple):
    """``renames``: a file moved with its blob unchanged is ``renamed`` (else ``removed`` + ``added``);
    ``copies``: a new file whose blob a file of the base that stays has is ``copied`` from it (else ``added``);
    ``unchanged``: paths listed as ``unchanged`` when both trees hold them alike; ``limit``: files listed at most."""

    renames: bool = True
    copies: bool = False
    unchanged: tuple[str, ...] = ()
    limit: int = MAX_FILES


def _kind(mode: str) -> str:
    return {"120000": "link", "160000": "submodule"}.get(mode, "file")


def diff_files(
    old: dict[str, tuple[str, str, str]], new: dict[str, tuple[str, str, str]], style: CompareStyle
) -> list[tuple[str, str, str, str | None]]:
    """``[(filename, status, blob sha, previous_filename)]`` from ``old`` to ``new`` (``{path: (mode, type,
    sha)}`` of every entry that is not a tree), sorted by filename and cut at ``style.limit``."""
    added = sorted(p for p in new if p not in old)
    removed = sorted(p for p in old if p not in new)
    out: list[tuple[str, str, str, str | None]] = []
    for p in sorted(set(old) & set(new)):
        (om, _, osha), (nm, _, nsha) = old[p], new[p]
        if _kind(om) != _kind(nm):
            out.append((p, "changed", nsha, None))
        elif (om, osha) != (nm, nsha):
            out.append((p, "modified", nsha, None))
        elif p in style.unchanged:
            out.append((p, "unchanged", nsha, None))
    for p in added:
        mode, _, sha = new[p]
        same = lambda q, m=mode, s=sha: old[q][2] == s and _kind(old[q][0]) == _kind(m)  # noqa: E731
        moved = next((q for q in removed if same(q)), None) if style.renames else None
        source = next((q for q in sorted(old) if q in new and new[q] == old[q] and same(q)), None)
        if moved is not None:
            removed.remove(moved)
            out.append((p, "renamed", sha, moved))
        elif style.copies and source is not None:
            out.append((p, "copied", sha, source))
        else:
            out.append((p, "added", sha, None))
    out += [(p, "removed", old[p][2], None) for p in removed]
    return sorted(out)[: style.limit]
