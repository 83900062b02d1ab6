"""Page names as the configuration gives them: wiki-relative paths."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable


def same_page(page: str, pages: Iterable[str]) -> bool:
    """True when the wiki-relative ``page`` names one of ``pages`` (``./m.md`` and ``a/../m.md`` are ``m.md``)."""
    return posixpath.normpath(page) in {posixpath.normpath(p) for p in pages}
