"""Read a local file only when it is a regular file, and never more than a cap: the one way kep-sync reads a
file it did not just write (wiki pages, the config, gate lists, release notes, state, cache entries, key and
token files, tarballs and bundles).

The file is opened with ``O_NONBLOCK`` (a FIFO opens without waiting for a writer) and checked with
``fstat`` on the open descriptor, so a FIFO, device, socket or directory is refused without blocking, also
one swapped in after an earlier check; at most ``cap + 1`` bytes are read, so an endless device or a file
that grows while it is read ends in a refusal, and no parser ever sees more than ``cap`` bytes. Symbolic
links are followed unless ``follow=False`` (pages may be links; the enhancements tree may not).

Both refusals are ``OSError`` subclasses whose ``strerror`` says why (``not a regular file (FIFO)``,
``larger than 1048576 bytes, refused``), so a caller's ``except OSError`` names them as it names any other
reason a file cannot be read.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

KIB, MIB = 1024, 1024 * 1024
#: Caps, bytes, by what is read (docs/behaviour.md "Size caps" lists them; the real inputs are far smaller).
PAGE_BYTES = 16 * MIB  # a wiki page (the real matrix page: ~30 KB; 5,000 rows: ~1.2 MB)
CONFIG_BYTES = 1 * MIB  # the config file (a real one: ~2 KB; 100 targets: ~20 KB)
SECRET_BYTES = 64 * KIB  # $GITHUB_TOKEN_FILE, the GitHub App private key file
STATE_BYTES = 16 * MIB  # state.json of a state directory (a real one: ~2 KB)
CACHE_ENTRY_BYTES = 64 * MIB  # one entry of cache_dir (the real upstream snapshot entry: ~1 MB)
REPORT_BYTES = 64 * MIB  # a JSON report kep-sync wrote
PR_FILE_BYTES = 4 * MIB  # pull-request.md of --publish git

_KINDS = (
    (stat.S_ISFIFO, "FIFO"),
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
    (stat.S_ISDIR, "directory"),
    (stat.S_ISLNK, "symbolic link"),
)


class NotRegularFile(OSError):
    """The path names a FIFO, socket, device, directory (or, with ``follow=False``, a symbolic link)."""

    def __init__(self, path: str, kind: str):
        super().__init__(errno.EINVAL, f"not a regular file ({kind})", path)
        self.kind = kind


class FileTooLarge(OSError):
    """The file holds more than ``cap`` bytes."""

    def __init__(self, path: str, cap: int):
        super().__init__(errno.EFBIG, f"larger than {cap} bytes, refused", path)
        self.cap = cap


def special_kind(mode: int) -> str:
    """``"FIFO"``, ``"socket"``, ``"character device"``, ... for an ``st_mode`` that is not a regular file."""
    return next((kind for test, kind in _KINDS if test(mode)), "special file")


def open_regular(path: str | os.PathLike[str], *, follow: bool = True) -> BinaryIO:
    """The regular file at ``path`` opened for binary reading (blocking reads; the caller bounds how much it
    reads). Raises :class:`NotRegularFile` for anything else (a symbolic link too when ``follow`` is False),
    ``FileNotFoundError`` and the other ``OSError`` of ``open``."""
    name = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(name, flags)
    except OSError:
        try:  # a socket cannot be opened (ENXIO), a link with O_NOFOLLOW neither (ELOOP): say what it is
            mode = (os.stat if follow else os.lstat)(name).st_mode
        except OSError:
            mode = stat.S_IFREG
        if not stat.S_ISREG(mode):
            raise NotRegularFile(name, special_kind(mode)) from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(name, special_kind(mode))
        os.set_blocking(fd, True)
        return open(fd, "rb", closefd=True)  # noqa: SIM115  # the caller closes it
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike[str], cap: int, *, follow: bool = True) -> bytes:
    """The bytes of the regular file at ``path``, at most ``cap`` of them.

    Raises :class:`NotRegularFile` (see :func:`open_regular`), :class:`FileTooLarge` when the file holds more
    than ``cap`` bytes (reading stops at ``cap + 1``), ``FileNotFoundError`` and any other ``OSError``."""
    with open_regular(path, follow=follow) as fh:
        data = fh.read(cap + 1)
    if len(data) > cap:
        raise FileTooLarge(os.fspath(path), cap)
    return data


def read_regular_text(path: str | os.PathLike[str], cap: int, *, follow: bool = True) -> str:
    """:func:`read_regular` decoded as UTF-8; raises ``UnicodeDecodeError`` for bytes that are not UTF-8."""
    return read_regular(path, cap, follow=follow).decode("utf-8")
