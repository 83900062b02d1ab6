"""Can the user kep-sync runs as write where a run writes? ``kep-sync validate`` (and ``serve`` at start) asks
before a run finds out: the wiki directory of ``publish: files`` and ``git`` and the folder of each page
(a page is replaced by a file written beside it and renamed, :mod:`bot.publish.files`), and for ``git``
the clone's git directory, which git must also agree to read (another user's clone is refused,
:func:`bot.sources.git.ownership_refusal`).

Permissions are as ``os.access`` reports them for the effective user and groups (the user a container
or ``sudo -u`` runs kep-sync as); a read-only mount counts as not writable.
"""

from __future__ import annotations

import os
from pathlib import Path

from bot.config import Config, shown
from bot.errors import KepSyncError


def write_problems(config: Config) -> list[str]:
    """One ``wiki.dir ...: not writable ...`` line for each place a run of ``config`` writes that this user may
    not write (``[]`` for ``publish: none`` and ``github``, which write nothing on disk, and for a
    ``wiki.dir`` that is no directory: the caller names that)."""
    if config.publish not in ("files", "git"):
        return []
    root = Path(config.wiki.dir).expanduser()
    places = [("", root)]
    places += [(f" (the folder of {shown(p)})", (root / p).parent) for p in config.wiki.pages]
    if config.digest.page:
        places.append((f" (the folder of {shown(config.digest.page)})", (root / config.digest.page).parent))
    if config.publish == "git":
        git_dir, why = _git_dir(root)
        if why:
            return [f"wiki.dir {shown(config.wiki.dir)}: {why}"]
        if git_dir is not None:
            places.append((" (its git directory, where commits are written)", git_dir))
    problems, seen = [], set()
    for what, place in places:
        key = os.path.realpath(place)
        if key in seen or not place.is_dir():
            continue
        seen.add(key)
        if not _writable(place):
            problems.append(
                f"wiki.dir {shown(config.wiki.dir)}{what}: not writable by uid {os.geteuid()}, the user kep-sync "
                f"runs as (publish {config.publish} writes there); give that user write access, or run as the "
                "owner"
            )
    return problems


def _writable(path: Path) -> bool:
    """True when the effective user may create and rename files in the directory ``path``."""
    effective = os.access in os.supports_effective_ids
    return os.access(path, os.W_OK | os.X_OK, effective_ids=effective)


def _git_dir(root: Path) -> tuple[Path | None, str]:
    """``(the git directory of the clone at root, "")``, ``(None, "")`` when it is none (the caller says so), or
    ``(None, why git refuses it)``."""
    from bot.sources.git import try_git

    try:
        out = try_git(root, "rev-parse", "--absolute-git-dir")
    except KepSyncError as exc:  # another user's clone: git will not read it
        return None, str(exc).split(": ", 1)[1]
    return (Path(out.strip()) if out else None), ""
