"""The wiki as a directory of pages: read them as they are; land = rewrite the changed ones, all or none."""

from __future__ import annotations

import os
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import PublishError, WikiError
from bot.log import get_logger
from bot.publish.files import publish_files
from bot.publish.backend import Base, Landing, Replan, page_error

if TYPE_CHECKING:
    from bot.plan.planner import SyncPlan


def read_wiki_pages(wiki_dir: Path, pages: list[str], once: Collection[str] = ()) -> dict[str, bytes]:
    """Read each page under ``wiki_dir`` (a page named twice is read once).

    ``once``: names (``wiki.pages``) that are one page when they name one file: a later one that is the
    file of an earlier one (the same ``(st_dev, st_ino)`` after following symbolic links: a symbolic or
    hard link, ``./``, ``a/../``) is not read, so the file is planned and written once, under the name
    listed first. Raises :class:`ConfigError` (exit 2) naming ``wiki.pages`` / ``--page``
    when a page does not exist or is not a file, :class:`WikiError` when it
    cannot be read.
    """
    out: dict[str, bytes] = {}
    files: set[tuple[int, int]] = set()
    for rel in pages:
        path = wiki_dir / rel
        if os.path.normpath(rel) in {os.path.normpath(p) for p in out}:
            continue
        try:
            what = "" if path.is_file() else "no such file" if not path.exists() else "not a file"
        except OSError as exc:  # a name too long, a directory this user may not search
            what = f"cannot be read ({exc.strerror or exc})"
        if what:
            raise page_error(rel, what, f"under the wiki directory {str(wiki_dir)!r}")
        try:
            if rel in once:
                st = path.stat()
                if (st.st_dev, st.st_ino) in files:
                    continue
                files.add((st.st_dev, st.st_ino))
            out[rel] = path.read_bytes()
        except OSError as exc:
            raise WikiError(f"{path}: cannot read wiki page: {exc.strerror or exc}") from None
    return out


class DirectoryWiki:
    """:class:`~bot.publish.backend.Wiki` over the directory ``wiki_dir`` and its ``pages`` (relative paths)."""

    #: How often :meth:`land` plans again for pages that keep changing before it gives up.
    MAX_REPLANS = 3

    def __init__(self, wiki_dir: Path, pages: list[str], once: Collection[str] = ()):
        self.wiki_dir, self.pages, self.once = wiki_dir, pages, once
        self.log = get_logger(component="publish", wiki=str(wiki_dir))

    def read(self) -> Base:
        """The pages as they are now (:func:`read_wiki_pages`, each of ``once`` read once per file); a
        directory has no base revision."""
        self.base = Base(read_wiki_pages(self.wiki_dir, self.pages, self.once))
        return self.base

    def land(self, plan: SyncPlan, replan: Replan) -> Landing:
        """Rewrite the changed pages in place, all or none (:func:`bot.publish.files.publish_files`).

        The pages are read again first: when any differs from what ``plan`` was made from (saved by a
        human or another program meanwhile), ``replan`` plans again from the new bytes, up to
        :data:`MAX_REPLANS` times. A page that changes between that check and the write raises
        :class:`~bot.publish.files.PageChanged` naming it; nothing is written then.
        """
        for _ in range(self.MAX_REPLANS):
            now = read_wiki_pages(self.wiki_dir, self.pages, self.once)
            if now == self.base.pages:
                break
            changed = sorted(p for p in now if now[p] != self.base.pages.get(p))
            self.log.info("a page changed while planning; planning again", pages=changed)
            self.base = Base(now)
            plan = replan(self.base)
        else:
            raise PublishError(f"{self.wiki_dir}: the pages kept changing while kep-sync planned; try again")
        return Landing(plan, publish_files(self.wiki_dir, plan.changed_pages(), self.base.pages))
