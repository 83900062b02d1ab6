"""Read the metadata files of an enhancements tarball: a local ``.tar.gz`` file (the offline snapshot in
``examples/``), and the stream GitHub serves for the ``github:`` source (:mod:`bot.sources.github_tarball`).

Both go through :func:`read_tar_stream`: the archive is read as a stream (never unpacked to disk), every
member path has its top folder stripped (``owner-repo-sha/`` at GitHub, ``enhancements-DATE-SHA/`` in the
snapshot), an absolute or ``..`` member path is refused, links and device entries under ``keps/`` and
oversized metadata files are reported as problems, and the decompressed stream is capped (gzip bomb).
The revision is the commit SHA in the archive's pax global header ``comment`` (``git archive`` and GitHub
write it there; ``scripts/gen/make_snapshot.py`` too).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import re
import tarfile
import zlib
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from bot.errors import SourceError
from bot.fileread import open_regular
from bot.model.kep import Problem
from bot.model.snapshot import is_kep_file, is_prr_file
from bot.sources.limits import Deadline, LimitedReader
from bot.sources.localfs import MAX_FILE_BYTES, NOT_UTF8, decode_path, text_path

#: File names read as a local tarball source (``--enhancements FILE``).
TARBALL_SUFFIXES = (".tar.gz", ".tgz")

#: Largest local tarball or tarball body accepted, bytes (the full enhancements tarball is ~40 MB).
MAX_TARBALL_BYTES = 256 * 1024 * 1024

#: Largest tarball once decompressed, bytes (the full enhancements tree is ~150 MB).
MAX_UNPACKED_BYTES = 1024 * 1024 * 1024

#: Largest extended header (pax ``x``/``g``, GNU long name/link) accepted, bytes: GitHub's and ``git archive``'s
#: are under 100 bytes; tarfile reads one whole into memory, so a 3 GiB pax ``comment`` is refused here.
MAX_HEADER_BYTES = 64 * 1024

#: A full commit SHA-1, lower-case hex (as git archive, GitHub and the commits API write it).
SHA_RE = re.compile(r"[0-9a-f]{40}")
#: The problem of a symbolic link under ``keps/`` in an archive (``_read_members`` words it so; GitHub's tarball
#: keeps a link as a link).
ARCHIVE_LINK = "archive entry is a symbolic link, not a file; skipped"
_EXTENDED_TYPES = (
    tarfile.XHDTYPE,
    tarfile.XGLTYPE,
    tarfile.SOLARIS_XHDTYPE,
    tarfile.GNUTYPE_LONGNAME,
    tarfile.GNUTYPE_LONGLINK,
)


class _CappedTarInfo(tarfile.TarInfo):
    """A TarInfo that refuses an extended header over :data:`MAX_HEADER_BYTES` before tarfile reads it."""

    def _proc_member(self, tarfile_: tarfile.TarFile) -> tarfile.TarInfo:
        if self.type in _EXTENDED_TYPES and self.size > MAX_HEADER_BYTES:
            raise tarfile.HeaderError(f"an extended header of {self.size} bytes (more than {MAX_HEADER_BYTES})")
        return super()._proc_member(tarfile_)  # type: ignore[misc]  # private to tarfile, not in typeshed


def _open_tar(
    read_chunk: Callable[[], bytes], what: str, limit: int, max_unpacked: int, deadline: Deadline | None
) -> tarfile.TarFile:
    """The gzip tar stream over ``read_chunk`` with every cap: compressed and decompressed bytes, the
    ``deadline`` and the size of extended headers."""
    body = LimitedReader(read_chunk, limit, what, deadline=deadline)
    gz = gzip.GzipFile(fileobj=io.BufferedReader(body, 1 << 16), mode="rb")
    unpacked = LimitedReader(lambda: gz.read(1 << 16), max_unpacked, what, unit=" once decompressed")
    return tarfile.open(fileobj=io.BufferedReader(unpacked, 1 << 16), mode="r|", tarinfo=_CappedTarInfo)


class ArchiveListing:
    """Every entry of an archive as a git tree listing (:mod:`bot.sources.git_tree`), filled by
    :func:`read_tar_stream`: ``entries`` ``{path: (mode, blob id)}`` below the top folder (an executable file
    ``100755``, a symbolic link ``120000`` with its target as the blob); ``usable`` is False when the archive holds
    what a git tree cannot be read back from: a hard link, a device, or a directory with nothing below it (git
    archive writes a submodule so)."""

    def __init__(self) -> None:
        self.entries: dict[str, tuple[str, str]] = {}
        self.dirs: set[str] = set()
        self.usable = True

    def add(self, tar: tarfile.TarFile, member: tarfile.TarInfo, path: str, keep: int) -> bytes | None:
        """Record ``member`` at ``path``; its bytes when it is a regular file of at most ``keep`` bytes (a stream
        member is read once: here)."""
        if member.isdir():
            self.dirs.add(path)
            return None
        if member.issym():
            target = member.linkname.encode("utf-8", "surrogateescape")
            self.entries[path] = ("120000", hashlib.sha1(b"blob %d\0" % len(target) + target).hexdigest())
            return None
        fh = tar.extractfile(member) if member.isfile() else None
        if fh is None:
            self.usable = False
            return None
        digest, kept = hashlib.sha1(b"blob %d\0" % member.size), bytearray()
        while chunk := fh.read(1 << 16):
            digest.update(chunk)
            if member.size <= keep:
                kept += chunk
        self.entries[path] = ("100755" if member.mode & 0o100 else "100644", digest.hexdigest())
        return bytes(kept) if member.size <= keep else None

    def finish(self) -> None:
        """Mark the listing unusable when a directory has nothing below it."""
        filled = {path.rsplit("/", n)[0] for path in self.entries for n in range(1, path.count("/") + 1)}
        if self.dirs - filled:
            self.usable = False


def is_tarball_path(path: Path) -> bool:
    """True when ``path`` names a ``.tar.gz`` / ``.tgz`` file (the local tarball source kind)."""
    return path.name.lower().endswith(TARBALL_SUFFIXES)


def read_tar_stream(
    read_chunk: Callable[[], bytes],
    what: str,
    limit: int = MAX_TARBALL_BYTES,
    *,
    max_unpacked: int = MAX_UNPACKED_BYTES,
    max_file_bytes: int = MAX_FILE_BYTES,
    deadline: Deadline | None = None,
    listing: ArchiveListing | None = None,
) -> tuple[list[tuple[str, bytes]], list[Problem], str]:
    """Read a gzip tar stream: ``(files, problems, revision)``; with ``listing``, every member is hashed into it.

    ``read_chunk()`` returns the next compressed bytes (``b""`` at the end); ``what`` names the
    archive in errors (a redacted URL or a path). ``files``: ``[(path, bytes)]`` of every
    ``keps/**/kep.yaml`` and ``keps/prod-readiness/**.yaml`` member in archive order; ``revision``:
    the 40-hex commit SHA of the pax global header ``comment``, ``""`` when absent.
    Raises :class:`SourceError` ``"{what}: ..."`` for an archive with no ``keps/`` below its top folder,
    an extended header over :data:`MAX_HEADER_BYTES`, an absolute or ``..`` member path, more
    than ``limit`` compressed bytes, more than ``max_unpacked`` bytes once decompressed, metadata
    files over ``limit`` bytes in total, the ``deadline`` passing, or a broken archive.
    """
    try:
        with _open_tar(read_chunk, what, limit, max_unpacked, deadline) as tar:
            files, problems, has_keps = _read_members(tar, what, limit, max_file_bytes, listing)
            comment = tar.pax_headers.get("comment", "").strip()
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise SourceError(f"{what}: not a readable tar.gz archive ({exc})") from None
    if not has_keps:
        raise SourceError(
            f"{what}: no keps/ folder under the archive's top folder (an enhancements tarball "
            "holds TOP/keps/..., as git archive and GitHub write it); refused, not read as "
            "every KEP gone"
        )
    return files, problems, comment if SHA_RE.fullmatch(comment) else ""


def read_local_tarball(path: Path, **limits) -> tuple[list[tuple[str, bytes]], list[Problem], str]:
    """:func:`read_tar_stream` over the file at ``path``; ``limits``: its keyword caps.

    Raises :class:`SourceError` naming the path when it cannot be opened or read.
    """
    what = text_path(str(path))
    try:
        with open_regular(path) as fh:
            return read_tar_stream(lambda: fh.read(1 << 16), what, **limits)
    except OSError as exc:
        raise SourceError(f"{what}: cannot read the tarball: {exc.strerror or exc}") from None


def tarball_revision(path: Path) -> str:
    """The commit SHA in the pax global header of the tarball at ``path`` (``""`` when absent), reading
    only its first header block, with the caps of :func:`read_tar_stream` (an extended header over
    :data:`MAX_HEADER_BYTES` is refused). Raises :class:`SourceError` when the file is not a readable tar.gz."""
    what = text_path(str(path))
    try:
        with (
            open_regular(path) as fh,
            _open_tar(lambda: fh.read(1 << 16), what, MAX_TARBALL_BYTES, MAX_UNPACKED_BYTES, None) as tar,
        ):
            tar.next()
            comment = tar.pax_headers.get("comment", "").strip()
    except (tarfile.TarError, EOFError, zlib.error) as exc:
        raise SourceError(f"{what}: not a readable tar.gz archive ({exc})") from None
    except OSError as exc:
        if isinstance(exc, gzip.BadGzipFile) or not exc.strerror:
            raise SourceError(f"{what}: not a readable tar.gz archive ({exc})") from None
        raise SourceError(f"{what}: cannot read the tarball: {exc.strerror}") from None
    return comment if SHA_RE.fullmatch(comment) else ""


def _read_members(
    tar: tarfile.TarFile, what: str, limit: int, max_file_bytes: int, listing: ArchiveListing | None
) -> tuple[list[tuple[str, bytes]], list[Problem], bool]:
    files: list[tuple[str, bytes]] = []
    problems: list[Problem] = []
    kept, has_keps = 0, False
    while (member := tar.next()) is not None:
        tar.members.clear()  # type: ignore[attr-defined]  # stream mode: keep memory flat (private list)
        raw = _member_path(member.name, what)
        path, changed = decode_path(raw or "")
        has_keps = has_keps or path == "keps" or path.startswith("keps/")
        metadata = is_kep_file(path) or is_prr_file(path)
        data = listing.add(tar, member, raw, max_file_bytes if metadata else 0) if listing and raw else None
        if raw is None or not path.startswith("keps/") or member.isdir():
            continue
        if not member.isfile():
            problems.append(Problem(path, "", f"archive entry is a {_member_kind(member)}, not a file; skipped"))
            continue
        if not metadata:
            continue
        if member.size > max_file_bytes:
            problems.append(Problem(path, "", f"larger than {max_file_bytes} bytes; skipped"))
            continue
        kept += member.size
        if kept > limit:
            raise SourceError(f"{what}: metadata files larger than {limit} bytes once unpacked, refused")
        if data is None:
            fh = tar.extractfile(member)
            data = fh.read() if fh else b""
        files.append((path, data))
        if changed:
            problems.append(Problem(path, "", NOT_UTF8))
    if listing is not None:
        listing.finish()
    files, twice = _unique(files)
    return files, problems + twice, has_keps


def _unique(files: list[tuple[str, bytes]]) -> tuple[list[tuple[str, bytes]], list[Problem]]:
    """``files`` with each path once: a member given twice with the same bytes is kept once; one given
    twice with different bytes is left out (which copy is upstream's cannot be told) and reported."""
    seen: dict[str, list[bytes]] = {}
    for path, data in files:
        seen.setdefault(path, []).append(data)
    kept = [(path, versions[0]) for path, versions in seen.items() if len(set(versions)) == 1]
    problems = [
        Problem(path, "", f"the archive holds this member {len(versions)} times with different content; not read")
        for path, versions in seen.items()
        if len(set(versions)) > 1
    ]
    return kept, problems


def _member_path(name: str, what: str) -> str | None:
    """Strip the top folder (``owner-repo-sha/``); ``None`` for the folder itself."""
    posix = PurePosixPath(name)
    if posix.is_absolute() or ".." in posix.parts:
        raise SourceError(f"{what}: archive member {name!r} escapes the archive, refused")
    parts = posix.parts[1:]
    return "/".join(parts) if parts else None


def _member_kind(member: tarfile.TarInfo) -> str:
    if member.issym():
        return "symbolic link"
    if member.islnk():
        return "hard link"
    if member.isdir():
        return "directory"
    return "device or special file"
