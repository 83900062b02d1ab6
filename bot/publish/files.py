"""Publish by rewriting the wiki pages in place: all changed pages, or none of them.

Every page is first written to a temporary file beside it; only when all of
them are ready are they moved into place with ``os.replace`` (atomic per
file). A page that is a symbolic link is written through to its target; a
page with several hard links is rewritten in place (truncated and written,
after every page is staged and checked), so all its names keep one file; a
path that is not a regular file (a device, a FIFO, a directory) or a page
this process may not replace is refused before anything is written.

"May replace" follows the operating system, as ``sed -i`` and editors'
atomic save do: write permission on the file and on its directory
(``os.access``), so root may replace a mode 0444 file. The replaced file keeps
its mode bits, and its owner and group when this process may set them (root,
as ``sed -i`` does with ``fchown``).

With ``expected`` (``{path: bytes read when planning}``), every page is read
again after staging and just before the first move: a page whose bytes differ
(someone saved it meanwhile) stops the write with :class:`PageChanged`,
naming the page, and nothing is replaced.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from bot.errors import PublishError
from bot.fileread import PAGE_BYTES, read_regular


class PageChanged(PublishError):
    """A page's bytes on disk are no longer those the plan was made from; ``path`` names it. Exit code 1."""

    def __init__(self, path: Path):
        super().__init__(
            f"{path}: changed on disk while kep-sync was planning; nothing was written "
            "(run again to plan from the new page)"
        )
        self.path = path


#: Said of a place on a file system mounted read-only, and the way out: no permission kep-sync is given helps there.
READ_ONLY_MOUNT = "on a read-only mount"
MOUNT_READ_WRITE = "mount it read-write (a container volume without :ro, a pod volumeMount without readOnly)"


def read_only_mount(path: Path) -> bool:
    """True when ``path`` (links followed) is on a file system mounted read-only (``statvfs``: ``ST_RDONLY``);
    False when it is not, or cannot be asked."""
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def writable_target(path: Path, *, must_exist: bool = True) -> Path:
    """The regular file ``path`` names (symbolic links resolved), checked to be writable.

    Raises :class:`PublishError` naming ``path`` when it is missing (and
    ``must_exist``), not a regular file, or not writable by this process: the
    file or its directory lacks write permission as ``os.access`` reports it
    (so mode 0444 refuses an ordinary user but not root, as for ``sed -i``), or is on a
    read-only mount (:data:`READ_ONLY_MOUNT`).
    """
    target = Path(os.path.realpath(path))
    try:
        st = target.stat()
    except FileNotFoundError:
        if must_exist:
            raise PublishError(f"{path}: no such file") from None
        return _directory_writable(path, target)
    except OSError as exc:
        raise PublishError(f"{path}: cannot write: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise PublishError(f"{path}: not a regular file; refusing to replace it")
    if not os.access(target, os.W_OK):
        if read_only_mount(target):
            raise PublishError(f"{path}: {READ_ONLY_MOUNT}; refusing to replace it; {MOUNT_READ_WRITE}")
        raise PublishError(f"{path}: read-only; refusing to replace it")
    return _directory_writable(path, target)


def _directory_writable(path: Path, target: Path) -> Path:
    """``target`` when its directory accepts a new file and a rename; else :class:`PublishError`.

    A missing directory is left to the write itself, which names the OS error.
    """
    if target.parent.is_dir() and not os.access(target.parent, os.W_OK | os.X_OK):
        if read_only_mount(target.parent):
            raise PublishError(
                f"{path}: directory {target.parent} is {READ_ONLY_MOUNT}; refusing to replace it; {MOUNT_READ_WRITE}"
            )
        raise PublishError(f"{path}: directory {target.parent} is read-only; refusing to replace it")
    return target


def _stage(target: Path, data: bytes) -> str:
    """Write ``data`` to a temporary file beside ``target`` (same mode; same owner and group when this
    process may set them); returns its path."""
    try:
        st: os.stat_result | None = target.stat()
    except FileNotFoundError:
        st = None
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".kep-sync", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
            if st is not None:
                _keep_owner(fh.fileno(), st)
        os.chmod(tmp, st.st_mode & 0o7777 if st is not None else 0o644)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def _keep_owner(fd: int, st: os.stat_result) -> None:
    """Give the open file ``fd`` the owner and group of ``st`` when they differ and this process may set
    them (root, or a group the owner belongs to); a refusal leaves this process's own, as ``sed -i`` does."""
    if (st.st_uid, st.st_gid) == (os.geteuid(), os.getegid()):
        return
    try:
        os.fchown(fd, st.st_uid, st.st_gid)
    except PermissionError:
        try:
            os.fchown(fd, -1, st.st_gid)
        except PermissionError:
            pass


def _check_unchanged(expected: dict[Path, bytes]) -> None:
    """Raise :class:`PageChanged` for the first ``{path: bytes}`` whose file no longer holds those bytes."""
    for path, data in expected.items():
        try:
            now = read_regular(path, PAGE_BYTES)
        except FileNotFoundError:
            now = None
        except OSError as exc:
            raise PublishError(f"{path}: cannot read: {exc.strerror or exc}") from None
        if now != data:
            raise PageChanged(path)


def write_files(
    files: dict[Path, bytes], *, must_exist: bool = True, expected: dict[Path, bytes] | None = None
) -> None:
    """Replace every ``{path: bytes}`` or, on any failure before the first move, none of them.

    ``expected``: ``{path: bytes}`` each path must still hold just before the first move (the bytes a
    plan was made from); else :class:`PageChanged` names the first that differs and nothing is replaced.
    Raises :class:`PublishError` naming the path; temporary files are removed.
    """
    targets = [(path, writable_target(path, must_exist=must_exist), data) for path, data in files.items()]
    staged: list[tuple[str, Path]] = []
    try:
        for path, target, data in targets:
            try:
                staged.append((_stage(target, data), target))
            except OSError as exc:
                raise PublishError(f"{path}: cannot write: {exc.strerror or exc}") from None
        _check_unchanged(expected or {})
        for tmp, target in staged:
            try:
                _move(tmp, target)
            except OSError as exc:
                raise PublishError(f"{target}: cannot write: {exc.strerror or exc}") from None
    finally:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)


def _move(tmp: str, target: Path) -> None:
    """Put the staged file ``tmp`` in place of ``target``: ``os.replace``, or for a file with several hard
    links a rewrite in place, so the other names still name it (``os.replace`` would split them)."""
    try:
        links = target.stat().st_nlink
    except FileNotFoundError:
        links = 1
    if links < 2:
        os.replace(tmp, target)
        return
    data = Path(tmp).read_bytes()
    with open(target, "r+b") as fh:
        fh.write(data)
        fh.truncate()
        fh.flush()
        os.fsync(fh.fileno())


def write_atomic(path: Path, data: bytes) -> None:
    """Replace the regular file ``path`` with ``data`` atomically; see :func:`write_files`."""
    write_files({path: data})


def publish_files(wiki_dir: Path, pages: dict[str, bytes], read: dict[str, bytes] | None = None) -> list[str]:
    """Write each changed page (``{relative path: new bytes}``) under ``wiki_dir``, all or none.

    ``read``: ``{relative path: bytes}`` the plan was made from; a page that no longer holds them raises
    :class:`PageChanged` and nothing is written. Returns the relative paths written, sorted.
    """
    write_files(
        {wiki_dir / rel: data for rel, data in sorted(pages.items())},
        expected={wiki_dir / rel: data for rel, data in (read or {}).items()},
    )
    return sorted(pages)
