"""The wiki as a directory of pages: read them as they are; publish = rewrite the changed ones, all or none."""

from __future__ import annotations

import os
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import ConfigError, PublishError, WikiError, relative_to
from bot.fileread import PAGE_BYTES, FileTooLarge, NotRegularFile, read_regular
from bot.log import get_logger
from bot.publish.backend import PagesAtBase, Publication, Replan, page_error
from bot.publish.files import publish_files

if TYPE_CHECKING:
    from bot.plan.planner import SyncPlan


def read_wiki_pages(wiki_dir: Path, pages: list[str], once: Collection[str] = ()) -> dict[str, bytes]:
    """Read each page under ``wiki_dir`` (a page named twice is read once).

    ``once``: names (``wiki.pages``) that are one page when they name one file: a later one that is the
    file of an earlier one (the same ``(st_dev, st_ino)`` after following symbolic links: a symbolic or
    hard link, ``./``, ``a/../``) is not read, so the file is planned and written once, under the name
    listed first. Raises :class:`ConfigError` (exit 2) naming ``wiki.dir`` when ``wiki_dir`` is not a
    directory, ``wiki.pages`` / ``--page`` when a page does not exist (with the closest page's name,
    :func:`close_page`), is not a regular file (checked on the open file: a FIFO is never waited on) or is
    larger than :data:`bot.fileread.PAGE_BYTES`, :class:`WikiError` when it cannot be read.
    """
    _check_dir(wiki_dir)
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
            hint = close_page(wiki_dir, rel) if what == "no such file" else ""
            raise page_error(
                rel, what, f"under the wiki directory {str(wiki_dir)!r}" + (f"; did you mean {hint!r}?" if hint else "")
            )
        try:
            if rel in once:
                st = path.stat()
                if (st.st_dev, st.st_ino) in files:
                    continue
                files.add((st.st_dev, st.st_ino))
            out[rel] = read_regular(path, PAGE_BYTES)
        except (NotRegularFile, FileTooLarge) as exc:
            what = "not a file" if isinstance(exc, NotRegularFile) else str(exc.strerror)
            raise page_error(rel, what, f"under the wiki directory {str(wiki_dir)!r}") from None
        except OSError as exc:
            raise WikiError(f"{path}: cannot read wiki page: {exc.strerror or exc}") from None
    return out


def _check_dir(wiki_dir: Path) -> None:
    """Raise :class:`ConfigError` (exit 2) naming ``wiki.dir`` when ``wiki_dir`` is missing or not a
    directory, and for a relative one the working directory it was read from."""
    try:
        is_dir, exists = wiki_dir.is_dir(), wiki_dir.exists()
    except OSError:  # a name too long: the page check names the reason
        return
    if not is_dir:
        what = "no such directory" if not exists else "not a directory"
        raise ConfigError(f"wiki.dir (--wiki) {str(wiki_dir)!r}: {what}{relative_to(wiki_dir)}")


#: How many ``*.md`` files :func:`close_page` reads at most, to stay quick on a huge directory.
MAX_CANDIDATES = 5000


def close_page(wiki_dir: Path, name: str) -> str:
    """The ``*.md`` page under ``wiki_dir`` (relative, ``/``-separated, not under a dot directory) whose name
    is closest to ``name`` (:func:`difflib.get_close_matches`, case ignored), else ``""``."""
    import difflib

    pages: list[str] = []
    for dirpath, dirnames, filenames in os.walk(wiki_dir):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        pages += [
            os.path.relpath(os.path.join(dirpath, f), wiki_dir).replace(os.sep, "/")
            for f in sorted(filenames)
            if f.endswith(".md")
        ]
        if len(pages) > MAX_CANDIDATES:
            break
    folded = {p.casefold(): p for p in reversed(pages)}
    close = difflib.get_close_matches(name.casefold(), list(folded), n=1, cutoff=0.6)
    return folded[close[0]] if close else ""


class DirectoryWiki:
    """:class:`~bot.publish.backend.Wiki` over the directory ``wiki_dir`` and its ``pages`` (relative paths)."""

    #: How often :meth:`publish` plans again for pages that keep changing before it gives up.
    MAX_REPLANS = 3

    def __init__(self, wiki_dir: Path, pages: list[str], once: Collection[str] = ()):
        self.wiki_dir, self.pages, self.once = wiki_dir, pages, once
        self.log = get_logger(component="publish", wiki=str(wiki_dir))

    def read(self) -> PagesAtBase:
        """The pages as they are now (:func:`read_wiki_pages`, each of ``once`` read once per file); a
        directory has no base revision."""
        self.base = PagesAtBase(read_wiki_pages(self.wiki_dir, self.pages, self.once))
        return self.base

    def publish(self, plan: SyncPlan, replan: Replan) -> Publication:
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
            self.base = PagesAtBase(now)
            plan = replan(self.base)
        else:
            raise PublishError(f"{self.wiki_dir}: the pages kept changing while kep-sync planned; try again")
        return Publication(plan, publish_files(self.wiki_dir, plan.changed_pages(), self.base.pages))
