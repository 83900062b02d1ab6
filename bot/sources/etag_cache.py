"""Conditional GETs with an on-disk body + ETag cache (``If-None-Match``, ``304 Not Modified``).

Used for the release notes: an unchanged file costs a ``304`` and no download;
a network failure falls back to the cached copy (and says so); a cached copy
that no longer decodes is dropped and fetched again. RFC 9110 ETags.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import SourceError
from bot.fileread import CACHE_ENTRY_BYTES, KIB, read_regular
from bot.http import send, sendable_etag, status_text
from bot.model.kep import Problem
from bot.redact import redact
from bot.sources.limits import LimitedReader, chunk_reader

if TYPE_CHECKING:
    import httpx


def source_cache_dir(cache_dir: Path, kind: str, value: str) -> Path:
    """The folder of one source's cached files: ``cache_dir/KIND/<sha256(value)[:16]>``, ``value`` the source
    string as given (``--release-notes``, ``--gate-lifecycle``, ``--sig-release``), so that two spellings of a
    source never share files and the folder name carries no part of ``value``."""
    return cache_dir / kind / hashlib.sha256(value.encode()).hexdigest()[:16]


class EtagCache:
    """Body + ETag pairs on disk (``NAME.body``, ``NAME.etag``), written through temporary files.

    An entry that cannot be used (missing or unreadable file, a directory, an ETag that is not
    printable ASCII) is absent: :meth:`get` never raises and never yields an ETag httpx would refuse.
    :meth:`put` and :meth:`drop` report failures as a :class:`~bot.model.kep.Problem` in ``problems``
    (the run goes on without caching; ``what`` names the cache in it) and leave no temporary file behind.
    """

    def __init__(self, root: Path, problems: list[Problem] | None = None, what: str = "release-notes cache"):
        self.root = root
        self.problems = [] if problems is None else problems
        self.what = what

    def get(self, name: str, max_bytes: int = CACHE_ENTRY_BYTES) -> tuple[bytes, str] | None:
        """``(body, ETag)`` of entry ``name``; ``None`` when it is absent or unusable (not a regular file, a
        body over ``max_bytes`` bytes)."""
        try:
            body = read_regular(self.root / f"{name}.body", max_bytes)
            raw = read_regular(self.root / f"{name}.etag", 4 * KIB)
        except OSError:
            return None
        try:
            etag = raw.decode("ascii").strip()
        except UnicodeDecodeError:
            return None
        return (body, etag) if etag == sendable_etag(etag) else None

    def put(self, name: str, body: bytes, etag: str) -> None:
        """Store ``body`` with ``etag`` (kept only when sendable, else ``""``); a failure is a problem."""
        tmp = None
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            (self.root / f"{name}.etag").unlink(missing_ok=True)  # a body without its ETag reads as absent
            for suffix, data in ((".body", body), (".etag", sendable_etag(etag).encode("ascii"))):
                fd, tmp = tempfile.mkstemp(prefix=f".{name}{suffix}.", suffix=".tmp", dir=self.root)
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, self.root / f"{name}{suffix}")
                tmp = None
        except OSError as exc:
            self._failed("write", name, exc)
        finally:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)

    def drop(self, name: str) -> None:
        """Forget entry ``name`` (its ETag first, so a half-removed entry reads as absent)."""
        try:
            for suffix in (".etag", ".body"):
                (self.root / f"{name}{suffix}").unlink(missing_ok=True)
        except OSError as exc:
            self._failed("remove", name, exc)

    def _failed(self, verb: str, name: str, exc: OSError) -> None:
        self.problems.append(
            Problem(
                str(self.root / name),
                "",
                f"cannot {verb} the {self.what}: {exc.strerror or exc}; going on without it",
            )
        )


def fetch_cached(
    client: httpx.Client,
    cache: EtagCache,
    name: str,
    url: str,
    problems: list[Problem],
    headers: dict[str, str] | None = None,
    usable: Callable[[bytes], bool] = lambda body: True,
    max_bytes: int = 32 * 1024 * 1024,
) -> bytes | None:
    """GET ``url`` with ``If-None-Match``; the body (fresh or cached), or ``None`` on 404.

    ``usable(body)`` says whether a body decodes: a fresh body that does not is returned but
    not cached; a body (fresh or cached) over ``max_bytes`` is refused (:class:`SourceError`) as it is read,
    never read whole first; a cached body the server confirms (``304``) that does not is dropped from the
    cache and fetched again once without ``If-None-Match``, so a truncated copy never sticks.
    """
    cached = cache.get(name, max_bytes)
    if cached and cached[1]:
        response = _get(client, url, cached, problems, {**(headers or {}), "If-None-Match": cached[1]})
        if response is None or response.status_code != 304:
            return _answer(cache, name, url, response, cached, problems, usable, max_bytes)
        response.close()
        if usable(cached[0]):
            return cached[0]
        cache.drop(name)
        cached = None
    return _answer(
        cache, name, url, _get(client, url, cached, problems, dict(headers or {})), cached, problems, usable, max_bytes
    )


def _get(
    client: httpx.Client, url: str, cached: tuple[bytes, str] | None, problems: list[Problem], headers: dict[str, str]
) -> httpx.Response | None:
    """The response to GET ``url``; ``None`` (and a problem) when the network failed and ``cached`` is there."""
    import httpx  # loaded on the first request: a directory source never needs it

    try:
        return send(client, "GET", url, headers=headers, stream=True)
    except httpx.HTTPError as exc:
        if cached:
            problems.append(Problem(redact(url), "", f"{type(exc).__name__}; using the cached copy"))
            return None
        raise SourceError(f"GET {redact(url)}: {type(exc).__name__}: {redact(str(exc))}") from None


def _answer(
    cache: EtagCache,
    name: str,
    url: str,
    response: httpx.Response | None,
    cached: tuple[bytes, str] | None,
    problems: list[Problem],
    usable: Callable[[bytes], bool],
    max_bytes: int,
) -> bytes | None:
    """The body :func:`fetch_cached` returns for ``response`` (``None``: the network failed, use ``cached``)."""
    if response is None:
        return cached[0] if cached else None
    try:
        return _body(cache, name, url, response, cached, problems, usable, max_bytes)
    finally:
        response.close()  # streamed: closed here whatever the answer


def _body(
    cache: EtagCache,
    name: str,
    url: str,
    response: httpx.Response,
    cached: tuple[bytes, str] | None,
    problems: list[Problem],
    usable: Callable[[bytes], bool],
    max_bytes: int,
) -> bytes | None:
    """:func:`_answer` for a streamed ``response``: its body read up to ``max_bytes`` (a larger one raises
    :class:`SourceError`)."""
    what = f"GET {redact(url)}"
    if response.status_code == 304 and cached:
        return cached[0]
    if response.status_code == 404:
        return None
    if response.status_code != 200:
        if cached:
            problems.append(Problem(redact(url), "", f"{status_text(response)}; using the cached copy"))
            return cached[0]
        raise SourceError(f"{what}: {status_text(response)}")
    body = LimitedReader(chunk_reader(response.iter_bytes()), max_bytes, what).read()
    if usable(body):
        cache.put(name, body, response.headers.get("etag", ""))
    else:
        cache.drop(name)
    return body
