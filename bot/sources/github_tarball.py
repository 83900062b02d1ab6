"""The ``github:OWNER/REPO@REF`` source: REF resolved to a commit SHA with one API call, that
commit's tarball streamed (size- and time-capped, before and after decompression) and read in memory.

GitHub REST: ``GET /repos/{owner}/{repo}/commits/{ref}`` (``Accept: application/vnd.github.sha``)
and ``GET /repos/{owner}/{repo}/tarball/{sha}``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import quote

from bot.errors import SourceError, UsageError
from bot.http import send, sendable_etag, status_text
from bot.model.kep import Problem
from bot.redact import redact
from bot.sources import is_valid_name, is_valid_ref
from bot.sources.limits import Deadline, LimitedReader, chunk_reader
from bot.sources.localfs import MAX_FILE_BYTES
from bot.sources.tarball import MAX_TARBALL_BYTES, MAX_UNPACKED_BYTES, SHA_RE, ArchiveListing, read_tar_stream

if TYPE_CHECKING:
    import httpx


#: Overall deadline of a tarball download, seconds (retries included).
MAX_DOWNLOAD_SECONDS = 300.0


#: Largest answer to the ref lookup, bytes (the answer is a 40-character SHA).
MAX_REF_BYTES = 4096


#: Overall deadline of the ref lookup, seconds (retries included).
MAX_REF_SECONDS = 30.0


DEFAULT_API_URL = "https://api.github.com"


class Revision(NamedTuple):
    """The current revision of a source, from one cheap request (:func:`current_revision`).

    ``revision``: commit SHA (``""`` when unknown, e.g. a directory that is not a git
    checkout, or on ``not_modified``); ``etag``: the HTTP ETag (``github:`` only);
    ``not_modified``: the server answered ``304`` to ``If-None-Match``, so the
    revision is the one that ETag was stored with.
    """

    revision: str
    etag: str = ""
    not_modified: bool = False


def github_url(api_url: str, repo: str, kind: str, ref: str) -> str:
    """``{api_url}/repos/{owner}/{repo}/{kind}/{ref}`` with every segment URL-quoted.

    Raises :class:`UsageError` when ``repo`` is not ``OWNER/REPO`` (or uses
    ``.``/``..``) or ``ref`` is not a valid git ref name, so no request can
    reach another path of the API (and carry the token there).
    """
    owner, _, name = repo.partition("/")
    if not (is_valid_name(owner) and is_valid_name(name)):
        raise UsageError(f"GitHub repository {repo!r}: expected OWNER/REPO")
    if not is_valid_ref(ref):
        raise UsageError(f"GitHub repository {repo!r}: REF {ref!r} is not a valid git ref name")
    return f"{api_url.rstrip('/')}/repos/{quote(owner, safe='')}/{quote(name, safe='')}/{kind}/{quote(ref, safe='/')}"


def resolve_github_ref(client: httpx.Client, api_url: str, repo: str, ref: str) -> str:
    """Resolve ``ref`` of ``OWNER/REPO`` to a commit SHA with one API call (see :func:`probe_github_ref`)."""
    return probe_github_ref(client, api_url, repo, ref).revision


def probe_github_ref(
    client: httpx.Client,
    api_url: str,
    repo: str,
    ref: str,
    etag: str = "",
    *,
    max_bytes: int = MAX_REF_BYTES,
    seconds: float = MAX_REF_SECONDS,
    clock: Callable[[], float] = time.monotonic,
) -> Revision:
    """One ``GET /repos/{owner}/{repo}/commits/{ref}`` with ``Accept: application/vnd.github.sha``.

    GitHub REST returns the SHA as text; with ``etag`` the request is
    conditional (``If-None-Match``) and a ``304`` (which costs no rate limit)
    gives ``Revision("", etag, not_modified=True)``; an ETag that is not printable ASCII is
    neither sent nor returned (:func:`bot.http.sendable_etag`). The body is streamed and
    at most ``max_bytes`` bytes are read, within ``seconds`` overall (``clock``:
    monotonic seconds). Raises :class:`SourceError` (URL redacted) on a
    transport failure, a body over the cap, the deadline, or an answer that is
    not a SHA; :class:`UsageError` for an invalid ``repo`` or ``ref``.
    """
    import httpx  # loaded here: only a github: source needs it

    url = github_url(api_url, repo, "commits", ref)
    what = f"GET {redact(url)}"
    deadline = Deadline(seconds, what, clock)
    headers = {"Accept": "application/vnd.github.sha"}
    etag = sendable_etag(etag)  # from a state file: never send what httpx refuses (non-ASCII)
    if etag:
        headers["If-None-Match"] = etag
    response = _send_streamed(client, url, what, headers=headers)
    try:
        deadline.check()
        if response.status_code == 304 and etag:
            return Revision("", etag, not_modified=True)
        body = b""
        if response.status_code == 200:
            body = LimitedReader(chunk_reader(response.iter_bytes()), max_bytes, what, deadline=deadline).readall()
    except httpx.HTTPError as exc:
        raise SourceError(f"{what}: {type(exc).__name__} while reading the body: {redact(str(exc))}") from None
    finally:
        response.close()
    sha = body.decode("ascii", "replace").strip()
    if response.status_code != 200 or not SHA_RE.fullmatch(sha):
        raise SourceError(f"{what}: {status_text(response)}, could not resolve {ref!r} to a commit")
    return Revision(sha, sendable_etag(response.headers.get("etag", "")))


def _send_streamed(client: httpx.Client, url: str, what: str, **kwargs) -> httpx.Response:
    import httpx  # loaded here: only a github: source needs it

    try:
        return send(client, "GET", url, stream=True, **kwargs)
    except httpx.HTTPError as exc:
        raise SourceError(f"{what}: {type(exc).__name__}: {redact(str(exc))}") from None


def read_tarball(
    client: httpx.Client,
    api_url: str,
    repo: str,
    sha: str,
    limit: int = MAX_TARBALL_BYTES,
    *,
    max_unpacked: int = MAX_UNPACKED_BYTES,
    max_file_bytes: int = MAX_FILE_BYTES,
    seconds: float = MAX_DOWNLOAD_SECONDS,
    clock: Callable[[], float] = time.monotonic,
    listing: ArchiveListing | None = None,
) -> tuple[list[tuple[str, bytes]], list[Problem]]:
    """Stream ``GET /repos/{repo}/tarball/{sha}`` and return its metadata files, in memory (with ``listing``: every
    member hashed into it, :class:`~bot.sources.tarball.ArchiveListing`).

    Returns ``(files, problems)``, read by :func:`bot.sources.tarball.read_tar_stream` (the member checks
    shared with the local tarball source). Raises :class:`SourceError` (URL redacted) for an absolute or
    ``..`` member path, a body over ``limit`` bytes, a stream over ``max_unpacked`` bytes once
    decompressed (gzip bomb), metadata files over ``limit`` bytes in total, a download not finished
    within ``seconds`` (``clock``: monotonic seconds), an HTTP error or a broken archive.
    """
    import httpx  # loaded here: only a github: source needs it

    url = github_url(api_url, repo, "tarball", sha)
    what = f"GET {redact(url)}"
    deadline = Deadline(seconds, what, clock)
    response = _send_streamed(client, url, what)
    try:
        if response.status_code != 200:
            raise SourceError(f"{what}: {status_text(response)}")
        deadline.check()
        files, problems, _ = read_tar_stream(
            chunk_reader(response.iter_bytes()),
            what,
            limit,
            max_unpacked=max_unpacked,
            max_file_bytes=max_file_bytes,
            deadline=deadline,
            listing=listing,
        )
        return files, problems
    except httpx.HTTPError as exc:
        raise SourceError(f"{what}: {type(exc).__name__} while reading the body: {redact(str(exc))}") from None
    finally:
        response.close()
