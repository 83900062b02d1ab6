"""The newest feature-gate list a source has, for the watch of the release in progress.

A file or a directory of lists (``gate_lifecycle.source``) is read as :func:`bot.sources.gate_lifecycle.load_gate_lifecycle`
reads it. For ``github:OWNER/REPO`` the release in progress has no ``release-1.NN`` branch until late in its
cycle, so the list is read on the repository's default branch instead: GitHub REST "Get repository content",
``GET /repos/{owner}/{repo}/contents/test/compatibility_lifecycle/reference/versioned_feature_list.yaml``
without ``ref`` (the default branch), ETag-conditional and cached under ``CACHE_DIR/gate-lifecycle/``
(:mod:`bot.sources.etag_cache`). That list has no release of its own: its newest version is the release
being made (:attr:`bot.model.gates.Lifecycle.shipped`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import ConfigError, SourceError
from bot.http import RequestCounter, client_or_new
from bot.model.gates import Lifecycle, ListError, lifecycle, parse_gate_list
from bot.model.kep import Problem
from bot.sources.etag_cache import EtagCache, fetch_cached, source_cache_dir
from bot.sources.gate_lifecycle import (
    KEY,
    LIST_PATH,
    MAX_LIST_BYTES,
    file_content,
    load_gate_lifecycle,
    parse_gate_source,
)

if TYPE_CHECKING:
    import httpx

#: The cache entry of the default branch's list.
ENTRY = "default-branch"


def newest_gate_list(
    value: str,
    cache_dir: Path,
    *,
    api_url: str = "https://api.github.com",
    token: str | None = None,
    client: httpx.Client | None = None,
    counter: RequestCounter | None = None,
) -> Lifecycle:
    """The lists of ``value`` (a ``gate_lifecycle.source``), for ``github:`` the one list of the default branch.

    Raises :class:`~bot.errors.UsageError` for an unknown form, :class:`ConfigError` for a list that cannot be
    used or a repository without the list, :class:`SourceError` when GitHub cannot be reached and nothing is
    cached.
    """
    source = parse_gate_source(value)
    if source.kind != "github":
        return load_gate_lifecycle(value, cache_dir)
    with client_or_new(client, token, counter=counter) as client:
        problems: list[Problem] = []
        cache = EtagCache(source_cache_dir(cache_dir, "gate-lifecycle", value), problems)
        url = f"{api_url.rstrip('/')}/repos/{source.location}/contents/{LIST_PATH}"
        body = fetch_cached(
            client,
            cache,
            ENTRY,
            url,
            problems,
            max_bytes=MAX_LIST_BYTES,
            headers={"Accept": "application/vnd.github+json"},
            usable=lambda b: file_content(b) is not None,
        )
    if body is None:
        raise ConfigError(f"{KEY} github:{source.location}: no {LIST_PATH} on the default branch")
    found = file_content(body)
    if found is None:
        raise SourceError(f"GET {url}: not a contents API file object")
    where = f"{source.location}@default-branch:{LIST_PATH}"
    try:
        gl, more = parse_gate_list(where, found[0])
    except ListError as exc:
        raise ConfigError(f"{KEY} {exc}") from None
    return lifecycle(f"github:{source.location}", [gl._replace(revision=found[1] or gl.revision)], problems + more)
