"""Can the user kep-sync runs as write where a run writes? ``kep-sync validate`` (and ``serve`` at start) asks
before a run finds out: the wiki directory of ``publish: files`` and ``git``, each page that exists and the
folder it is in, symbolic links followed (a page is replaced by a file written beside the file it names and
renamed, and a read-only page is refused, :mod:`bot.publish.files`), and for ``git``
the clone's git directory, which git must also agree to read (another user's clone is refused,
:func:`bot.sources.git.ownership_refusal`).

Permissions are as ``os.access`` reports them for the effective user and groups (the user a container
or ``sudo -u`` runs kep-sync as); a read-only mount counts as not writable, and is named as such, once.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
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
    pages = [*config.wiki.pages, *([config.digest.page] if config.digest.page else [])]
    places = [("", root)]
    places += [(f" (the folder of {shown(p)})", _folder(root / p)) for p in pages]
    if config.publish == "git":
        git_dir, why = _git_dir(root)
        if why:
            return [f"wiki.dir {shown(config.wiki.dir)}: {why}"]
        if git_dir is not None:
            places.append((" (its git directory, where commits are written)", git_dir))
    problems: list[str] = []
    seen: set[str] = set()
    read_only: set[int] = set()  # the devices of read-only mounts already named: once each

    def refuse(what: str, place: Path) -> None:
        from bot.publish.files import read_only_mount

        if not read_only_mount(place):
            problems.append(_problem(config, what))
        elif (device := place.stat().st_dev) not in read_only:
            read_only.add(device)
            problems.append(_read_only(config, what))

    for what, place in places:
        key = os.path.realpath(place)
        if key in seen or not _is(place, stat.S_ISDIR):
            continue
        seen.add(key)
        if not _writable(place):
            refuse(what, place)
    for page in pages:
        if _is(root / page, stat.S_ISREG) and not _writable(root / page, os.W_OK):
            refuse(f" (the page {shown(page)})", root / page)
    return problems


def _folder(page: Path) -> Path:
    """The folder the file ``page`` names is in, symbolic links followed (where the page is replaced), as a path
    relative to where ``page`` is when the links are relative."""
    for _ in range(40):  # the kernel's own limit on links followed
        try:
            page = page.parent / os.readlink(page)
        except OSError:  # no link (or none to be read): this is the file
            break
    return page.parent


def _is(path: Path, kind: Callable[[int], bool]) -> bool:
    """True when ``path`` (links followed) is of ``kind`` (``stat.S_ISDIR``, ...); False when it cannot be seen."""
    try:
        return kind(path.stat().st_mode)
    except OSError:
        return False


def _problem(config: Config, what: str) -> str:
    return (
        f"wiki.dir {shown(config.wiki.dir)}{what}: not writable by uid {os.geteuid()}, the user kep-sync runs as "
        f"(publish {config.publish} writes there); give that user write access, or run as the owner"
    )


def _read_only(config: Config, what: str) -> str:
    """A place on a read-only mount, which no permission of the user kep-sync runs as could fix."""
    from bot.publish.files import MOUNT_READ_WRITE, READ_ONLY_MOUNT

    return (
        f"wiki.dir {shown(config.wiki.dir)}{what}: {READ_ONLY_MOUNT} (publish {config.publish} writes there); "
        f"{MOUNT_READ_WRITE}"
    )


def _writable(path: Path, mode: int = os.W_OK | os.X_OK) -> bool:
    """True when the effective user may create and rename files in the directory ``path`` (``mode`` ``W_OK``:
    may write the file ``path``, which :func:`bot.publish.files.writable_target` asks before replacing it)."""
    effective = os.access in os.supports_effective_ids
    return os.access(path, mode, effective_ids=effective)


def _git_dir(root: Path) -> tuple[Path | None, str]:
    """``(the git directory of the clone at root, "")``, ``(None, "")`` when it is none (the caller says so), or
    ``(None, why git refuses it)``."""
    from bot.sources.git import try_git

    try:
        out = try_git(root, "rev-parse", "--absolute-git-dir")
    except KepSyncError as exc:  # another user's clone: git will not read it
        return None, str(exc).split(": ", 1)[1]
    return (Path(out.strip()) if out else None), ""
