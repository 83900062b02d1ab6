"""Publish by rewriting the wiki pages in place: one atomic replace per changed page."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from bot.errors import PublishError


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (temp file in the same folder + ``os.replace``).

    Keeps the file's permission bits. Raises :class:`PublishError` naming the
    path; on failure the original file is untouched.
    """
    try:
        mode = path.stat().st_mode & 0o7777
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".kep-sync", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise PublishError(f"{path}: cannot write: {exc.strerror or exc}") from None


def publish_files(wiki_dir: Path, pages: dict[str, bytes]) -> list[str]:
    """Write each changed page (``{relative path: new bytes}``) under ``wiki_dir``; returns the paths written."""
    written = []
    for rel, data in sorted(pages.items()):
        write_atomic(wiki_dir / rel, data)
        written.append(rel)
    return written
