"""Bounded reads of GitHub's Git database and compare API for the incremental ``github:`` source
(:mod:`bot.sources.upstream`): a commit's tree id, a tree's entries, a blob, a compare.

GitHub REST: ``GET /repos/{o}/{r}/git/commits/{sha}`` (``tree.sha``), ``GET /repos/{o}/{r}/git/trees/{sha}``
(``?recursive=1``: every entry below, ``truncated`` when GitHub cut the list), ``GET /repos/{o}/{r}/git/blobs/{sha}``
(``Accept: application/vnd.github.raw``) and ``GET /repos/{o}/{r}/compare/{base}...{head}``. Every body is
streamed and capped. An answer that cannot be used (a transport error, another status, a body over its cap or
of the wrong shape) raises :class:`Unavailable` naming the request and why: the caller reads the tarball.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from bot.http import send, status_text
from bot.redact import redact
from bot.sources.github_tarball import github_url
from bot.sources.limits import LimitedReader, chunk_reader
from bot.sources.tarball import SHA_RE

if TYPE_CHECKING:
    import httpx

#: Largest JSON answer read (a recursive tree of ``keps/``, a compare): GitHub cuts a tree listing at 7 MB.
MAX_ANSWER_BYTES = 16 * 1024 * 1024


class Unavailable(Exception):
    """An answer that cannot be used; ``str()`` names the request (URL redacted) and why."""


def get_bytes(
    client: httpx.Client, url: str, limit: int, *, accept: str = "application/vnd.github+json", params=None
) -> bytes:
    """The body of a ``200`` answer to ``GET url``, at most ``limit`` bytes; raises :class:`Unavailable` for
    another status, a transport error or a longer body (:class:`TooLarge`)."""
    import httpx

    from bot.errors import SourceError

    what = f"GET {redact(url)}"
    try:
        response = send(client, "GET", url, stream=True, headers={"Accept": accept}, params=params)
    except httpx.HTTPError as exc:
        raise Unavailable(f"{what}: {type(exc).__name__}") from None
    try:
        if response.status_code != 200:
            raise Unavailable(f"{what}: {status_text(response)}")
        return LimitedReader(chunk_reader(response.iter_bytes()), limit, what).readall()
    except SourceError:
        raise TooLarge(f"{what}: larger than {limit} bytes") from None
    except httpx.HTTPError as exc:
        raise Unavailable(f"{what}: {type(exc).__name__} while reading the body") from None
    finally:
        response.close()


class TooLarge(Unavailable):
    """A body longer than the cap it was read with."""


def get_json(client: httpx.Client, url: str, *, params=None, limit: int = MAX_ANSWER_BYTES) -> dict:
    """The JSON object of a ``200`` answer to ``GET url``; raises :class:`Unavailable` (see :func:`get_bytes`)
    also for a body that is not a JSON object."""
    raw = get_bytes(client, url, limit, params=params)
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise Unavailable(f"GET {redact(url)}: not JSON") from None
    if not isinstance(data, dict):
        raise Unavailable(f"GET {redact(url)}: not a JSON object")
    return data


def commit_tree(client: httpx.Client, api_url: str, repo: str, sha: str) -> str:
    """The tree id of commit ``sha`` (``tree.sha`` of ``GET git/commits/{sha}``)."""
    url = github_url(api_url, repo, "git/commits", sha)
    tree = get_json(client, url).get("tree")
    tree_sha = tree.get("sha") if isinstance(tree, dict) else None
    if not (isinstance(tree_sha, str) and SHA_RE.fullmatch(tree_sha)):
        raise Unavailable(f"GET {redact(url)}: no tree id")
    return tree_sha


def tree_entries(
    client: httpx.Client, api_url: str, repo: str, sha: str, *, recursive: bool = False
) -> dict[str, tuple[str, str]]:
    """``{path: (mode, id)}`` of tree ``sha``: its own entries, or with ``recursive`` every entry below it that is
    not a tree (paths relative to it). Raises :class:`Unavailable` for a listing GitHub cut (``truncated``) or an
    entry of the wrong shape."""
    url = github_url(api_url, repo, "git/trees", sha)
    data = get_json(client, url, params={"recursive": "1"} if recursive else None)
    rows = data.get("tree")
    if data.get("truncated") is not False or not isinstance(rows, list):
        raise Unavailable(f"GET {redact(url)}: the listing is cut short or missing")
    out: dict[str, tuple[str, str]] = {}
    for row in rows:
        path, mode, kind, oid = (row.get(k) if isinstance(row, dict) else None for k in ("path", "mode", "type", "sha"))
        if not (
            isinstance(path, str)
            and path
            and isinstance(mode, str)
            and kind in ("blob", "tree", "commit")
            and isinstance(oid, str)
            and SHA_RE.fullmatch(oid)
        ):
            raise Unavailable(f"GET {redact(url)}: an entry is not (path, mode, type, sha)")
        if not (recursive and kind == "tree"):
            out[path] = (mode, oid)
    return out


def blob(client: httpx.Client, api_url: str, repo: str, sha: str, limit: int) -> bytes | None:
    """The bytes of blob ``sha`` (checked against the id), ``None`` when it is longer than ``limit`` bytes (only
    ``limit + 1`` bytes are read). Raises :class:`Unavailable` for an answer that is not that blob."""
    from bot.sources.upstream_cache import blob_id

    url = github_url(api_url, repo, "git/blobs", sha)
    try:
        data = get_bytes(client, url, limit, accept="application/vnd.github.raw")
    except TooLarge:
        return None
    if blob_id(data) != sha:
        raise Unavailable(f"GET {redact(url)}: the bytes are not blob {sha}")
    return data


def compare(client: httpx.Client, api_url: str, repo: str, base: str, head: str) -> dict:
    """The answer of ``GET compare/{base}...{head}?per_page=1`` (the first page: every changed file GitHub lists,
    one commit)."""
    url = f"{api_url.rstrip('/')}/repos/{repo}/compare/{base}...{head}"  # SHAs and a checked OWNER/REPO
    if not (SHA_RE.fullmatch(base) and SHA_RE.fullmatch(head)):
        raise Unavailable(f"compare {base[:12]}...{head[:12]}: not commit ids")
    return get_json(client, url, params={"per_page": "1"})
