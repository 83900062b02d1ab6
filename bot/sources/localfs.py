"""Read the metadata files of an enhancements directory safely, and turn any path name into valid text.

Only regular files are read (``lstat``, ``O_NOFOLLOW``, ``O_NONBLOCK``): a
symbolic link, FIFO, device or socket under ``keps/``, an unreadable file or
directory, and a file over the per-file cap are reported as
:class:`~bot.model.kep.Problem` ``(path, "", message)`` and skipped; one bad entry
never stops the others.
"""

from __future__ import annotations

import os
from pathlib import Path

from bot.fileread import FileTooLarge, NotRegularFile, read_regular, special_kind
from bot.model.kep import Problem
from bot.model.snapshot import is_kep_file, is_prr_file

#: Largest metadata file read, bytes (the largest real kep.yaml is ~10 kB).
MAX_FILE_BYTES = 4 * 1024 * 1024
LINK = "symbolic link; skipped"
NOT_UTF8 = "path is not valid UTF-8 (bad bytes shown as U+FFFD)"


def decode_path(name: str | bytes) -> tuple[str, bool]:
    """``(text, changed)``: ``name`` as valid UTF-8 text, bad bytes replaced by U+FFFD.

    ``name`` is raw bytes (git, ``tarfile`` with a binary header) or a ``str``
    carrying surrogate escapes (``os`` and ``tarfile`` give those for names that
    are not UTF-8). ``changed`` is True when something had to be replaced.
    """
    if isinstance(name, str):
        try:
            name.encode("utf-8")
            return name, False
        except UnicodeEncodeError:
            pass
        try:
            raw = name.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            raw = name.encode("utf-8", "surrogatepass")
    else:
        raw = name
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace"), True


def text_path(name: str | bytes) -> str:
    """``name`` as valid text (see :func:`decode_path`)."""
    return decode_path(name)[0]


def scan_directory(root: Path, max_file_bytes: int = MAX_FILE_BYTES) -> tuple[list[tuple[str, bytes]], list[Problem]]:
    """Every kep.yaml and PRR file under ``root/keps``, and the problems met on the way.

    Returns ``(files, problems)``: ``files`` is ``[(relative POSIX path, bytes)]``
    sorted by path (a PRR file with ``b""``: the model uses only the names of the PRR
    files, :attr:`bot.model.snapshot.Snapshot.prr`, so their bytes are not read); paths are valid text
    (:func:`decode_path`; a replaced name
    adds a :data:`NOT_UTF8` problem). Symbolic links anywhere under ``keps/``
    (``keps`` itself included) are never followed: reported as :data:`LINK`.
    Unreadable directories (path ending in ``/``) and files, non-regular files,
    a directory named like a metadata file, and files over ``max_file_bytes``
    bytes are reported too. Never raises for the content of the tree.
    """
    files: list[tuple[str, bytes]] = []
    problems: list[Problem] = []
    if os.path.islink(root / "keps"):
        return files, [Problem("keps", "", LINK)]
    stack = [(os.fspath(root / "keps"), "keps")]
    while stack:
        dirpath, raw_rel = stack.pop()
        try:
            with os.scandir(dirpath) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            message = f"directory cannot be read ({exc.strerror}); skipped"
            problems.append(Problem(text_path(raw_rel) + "/", "", message))
            continue
        subdirs = []
        for entry in entries:
            raw = f"{raw_rel}/{entry.name}"
            path, changed = decode_path(raw)
            wanted = is_kep_file(path) or is_prr_file(path)
            try:
                if entry.is_symlink():
                    problems.append(Problem(path, "", LINK))
                elif entry.is_dir(follow_symlinks=False):
                    if wanted:
                        problems.append(Problem(path, "", "a directory, not a file; skipped"))
                    subdirs.append((entry.path, raw))
                elif not entry.is_file(follow_symlinks=False):
                    kind = special_kind(entry.stat(follow_symlinks=False).st_mode)
                    problems.append(Problem(path, "", f"not a regular file ({kind}); skipped"))
                elif wanted and not is_kep_file(path):
                    files.append((path, b""))
                    if changed:
                        problems.append(Problem(path, "", NOT_UTF8))
                elif wanted:
                    data, message = read_regular_file(entry.path, max_file_bytes)
                    if message:
                        problems.append(Problem(path, "", message))
                        continue
                    files.append((path, data))
                    if changed:
                        problems.append(Problem(path, "", NOT_UTF8))
            except OSError as exc:
                problems.append(Problem(path, "", f"cannot be read ({exc.strerror}); skipped"))
        stack.extend(reversed(subdirs))
    files.sort(key=lambda f: f[0])
    return files, problems


def read_regular_file(path: str, max_bytes: int) -> tuple[bytes, str]:
    """``(bytes, "")`` of the regular file at ``path``, or ``(b"", why it was skipped)``.

    :func:`bot.fileread.read_regular` without following a symbolic link, so a link or FIFO swapped in after
    the directory was listed is refused without blocking; at most ``max_bytes + 1`` bytes are read. Raises
    ``OSError`` when the file cannot be opened or read.
    """
    try:
        return read_regular(path, max_bytes, follow=False), ""
    except NotRegularFile as exc:
        return b"", LINK if exc.kind == "symbolic link" else f"not a regular file ({exc.kind}); skipped"
    except FileTooLarge:
        return b"", f"larger than {max_bytes} bytes; skipped"
