"""KEP directories renamed upstream: which old ``NNNN-slug`` now lives where. Pure, from the log alone.

A rename is a first-parent commit that deleted one kep.yaml and added another
with the same KEP number (:func:`bot.model.history.log.versions` follows the same
rule). Chains are followed (``a -> b -> c`` maps both ``a`` and ``b`` to
``c``); a slug that came back (``a -> b -> a``) is no longer a rename.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from bot.model.history.log import Commit, kep_number


class Rename(NamedTuple):
    """Where an old KEP directory went: the kep.yaml ``path`` it has now, the ``commit`` that renamed it
    away from the old slug (:class:`~bot.model.history.log.Commit`) and the ``old`` kep.yaml path it had then."""

    path: str
    commit: Commit
    old: str


def slug_of(path: str) -> str:
    """``keps/sig-x/4815-dra-partitionable-devices/kep.yaml`` -> ``dra-partitionable-devices``."""
    name = path.split("/")[-2] if path.count("/") >= 2 else ""
    return name.split("-", 1)[1] if "-" in name else ""


def renamed_dirs(log: Sequence[Commit]) -> dict[tuple[int, str], Rename]:
    """``{(KEP number, old slug casefolded): Rename}`` for every directory renamed on the first-parent line.

    ``log``: newest first. Moves that keep the slug (a SIG move) are not listed
    (a row's ``NNNN-slug`` still names the KEP).
    """
    out: dict[tuple[int, str], Rename] = {}
    for commit in reversed(log):  # oldest first
        for added in (f for f in commit.files if f.status == "A"):
            number = kep_number(added.path)
            gone = [
                f.path for f in commit.files if f.status == "D" and number is not None and kep_number(f.path) == number
            ]
            if number is None or len(gone) != 1:
                continue
            old = gone[0]
            for key, rename in list(out.items()):
                if rename.path == old:
                    out[key] = rename._replace(path=added.path)
            old_slug = slug_of(old).casefold()
            if old_slug != slug_of(added.path).casefold():
                out.setdefault((number, old_slug), Rename(added.path, commit, old))
                out[(number, old_slug)] = out[(number, old_slug)]._replace(path=added.path)
    return {key: r for key, r in out.items() if slug_of(r.path).casefold() != key[1]}


#: A path segment kep-sync writes into a table cell: letters, digits, ``-``, ``_`` and ``.`` only (no ``|``,
#: space, backtick or control character that would break the table or the link).
_PLAIN_SEGMENT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
#: Where a name starts: not inside a longer word or number, nor in a URL fragment (``README.md#100-old``: a
#: ``#`` right after a path character); after ``KEP-`` / ``KEP `` it may start.
_START = r"(?:(?<![\w.-])(?<![\w./-]#)|(?<=\bKEP[- ]))"
_STOP = r"(?![\w.-])"


def unplain_dir(path: str) -> str:
    """``""`` when every directory of the kep.yaml ``path`` is a plain name (:data:`_PLAIN_SEGMENT_RE`), else
    the first one that is not (``5573-remove|cgroup v1``): such a name is never written into a table cell."""
    return next((part for part in path.split("/")[:-1] if not _PLAIN_SEGMENT_RE.match(part)), "")


def renamed_cell(text: str, number: int, old_slug: str, old_dir: str, new_path: str) -> str:
    """A KEP cell rewritten to the new directory, in its own style: ``4815-old`` -> ``4815-new`` in the text
    (and in a link target, where the old ``keps/sig-x/4815-old`` path becomes the new one first).

    ``old_slug`` is the slug as the cell writes it; ``old_dir`` the old
    ``keps/<sig>/NNNN-slug`` path or ``""`` when unknown. Only whole names are
    rewritten, with the number as written (``0000-old`` is KEP 0): ``14815-old``, ``4815-old-2``,
    ``xkeps/sig-x/4815-old`` and a URL fragment
    (``README.md#4815-old``: an anchor in the page, not a path segment) are kept. ``new_path``'s
    directories must be plain names (:func:`unplain_dir`); the caller refuses others.
    """
    new_dir = new_path.rsplit("/", 1)[0]
    if old_dir:
        text = re.sub(_START + re.escape(old_dir) + _STOP, lambda _: new_dir, text)
    new_name = new_dir.rsplit("/", 1)[-1]
    name = f"0*{number}-{re.escape(old_slug)}"  # 0000-kep-process is KEP 0: the number as the cell pads it
    return re.sub(_START + name + _STOP, lambda _: new_name, text, flags=re.IGNORECASE)
