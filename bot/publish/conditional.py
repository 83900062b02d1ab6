"""Conditional GETs of the wiki repository (``If-None-Match``, ``304 Not Modified``) through PyGithub's requester.

A scheduled run repeats the same reads (the bot's pull requests, the base branch, each page at the base head,
the comments of the open pull request): each answer is kept with its ``ETag`` in
``cache_dir/github-wiki/<key>/`` (:class:`bot.sources.etag_cache.EtagCache`, as the release notes are), and the
next run sends the ``ETag`` back. GitHub answers ``304`` with no body when nothing changed, and a ``304`` to an
authorized request does not count against the primary rate limit (GitHub REST docs, "Best practices for using
the REST API", conditional requests). A kept answer that no longer decodes is dropped and read again without
``If-None-Match``, so a damaged copy never sticks. The cache holds what the API answered (public to whoever may
read the repository), never a credential: the ``Authorization`` header is not part of an entry, and an answer
holding the value of a known secret (:func:`bot.redact.redact_values`) is not kept.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from github.Requester import Requester

from bot.log import get_logger
from bot.model.kep import Problem
from bot.redact import redact_values
from bot.sources.etag_cache import EtagCache

#: Bytes of one kept answer at most (a page of 1 MB is about 1.4 MB as base64 in JSON; a list of 100 pull requests
#: with long bodies a few MB).
ENTRY_BYTES = 16 * 1024 * 1024
_NEXT = re.compile(r'<([^>]+)>;\s*rel="next"')


def etag_dir(cache_dir: str, api_url: str, repo: str) -> Path:
    """``cache_dir/github-wiki/<16 hex digits of the API root and repository>``: one directory per wiki."""
    key = hashlib.sha256(f"{api_url.rstrip('/')}\n{repo}".encode()).hexdigest()[:16]
    return Path(cache_dir).expanduser() / "github-wiki" / key


class ConditionalReads:
    """GETs through ``requester`` that send the kept ``ETag`` and use the kept answer on ``304``.

    ``root``: the cache directory (``None``: no cache, every GET is a plain one). ``not_modified`` counts the
    ``304`` answers of this object's life. Errors are PyGithub's (:class:`github.GithubException`), raised as
    the requester raises them; a cache that cannot be written is logged and the run goes on without it.
    """

    def __init__(self, requester: Requester, root: Path | None):
        self.requester = requester
        self.problems: list[Problem] = []
        self.cache = EtagCache(root, self.problems, what="GitHub wiki cache") if root is not None else None
        self.not_modified = 0

    def get(self, url: str, params: dict[str, Any] | None = None, fresh: bool = False) -> Any:
        """The JSON answer of ``GET url?params`` (fresh or, on ``304``, the kept one); ``fresh``: read without
        ``If-None-Match`` (a kept answer that did not hold), the new answer kept."""
        return self._get(url, params, fresh)[0]

    def get_list(self, url: str, params: dict[str, Any] | None = None) -> list[Any]:
        """Every item of the list at ``url``, following ``Link: rel="next"`` (each page conditional on its own)."""
        items: list[Any] = []
        next_url: str | None = url
        while next_url:
            data, link = self._get(next_url, params)
            items += data if isinstance(data, list) else []
            found = _NEXT.search(link)
            next_url, params = (found.group(1), None) if found else (None, None)
        return items

    def _get(self, url: str, params: dict[str, Any] | None, fresh: bool = False) -> tuple[Any, str]:
        """``(JSON answer, its Link header)``."""
        name = hashlib.sha256(json.dumps([url, sorted((params or {}).items())], default=str).encode()).hexdigest()
        kept = self.cache.get(name, ENTRY_BYTES) if self.cache and not fresh else None
        if kept and kept[1]:
            headers, data = self.requester.requestJsonAndCheck("GET", url, params, {"If-None-Match": kept[1]})
            if data is None:  # 304: only an answer with no body (every 200 of these reads has one)
                self.not_modified += 1
                try:
                    entry = json.loads(kept[0])
                    return entry["data"], str(entry.get("link") or "")
                except (ValueError, KeyError, TypeError):
                    assert self.cache is not None
                    self.cache.drop(name)
                    headers, data = self.requester.requestJsonAndCheck("GET", url, params)
        else:
            headers, data = self.requester.requestJsonAndCheck("GET", url, params)
        link = str(headers.get("link") or "")
        if self.cache is not None:
            text = json.dumps({"data": data, "link": link})
            if redact_values(text) == text:
                self.cache.put(name, text.encode(), str(headers.get("etag") or ""))
            else:  # an answer holding a known secret's value is never written to disk
                self.cache.drop(name)
            if self.problems:
                get_logger(component="publish").warning(
                    "conditional reads go on without a cache", problem=self.problems[0].message
                )
                self.cache, self.problems[:] = None, []
        return data, link
