"""Fetch the release team's machine-readable release notes (``release-notes-1.NN.json``).

``--release-notes SRC`` forms (see :func:`parse_notes_source`):

1. a directory of ``release-notes-1.NN.json`` files (e.g. ``../shared/data/release-notes``);
2. ``github:OWNER/REPO@REF`` (default ``github:kubernetes/sig-release@master``): the
   ``releases/`` folder is listed with the contents API and each
   ``releases/release-1.NN/release-notes/release-notes-draft.json`` is read from
   the raw file host. Every request is ETag-conditional (``If-None-Match``);
   bodies and ETags are cached under ``CACHE_DIR/release-notes/``, so an
   unchanged file costs a ``304 Not Modified`` and no download. When the
   network fails, a cached copy is used and a problem says so.

Only the releases a run needs are read (:func:`select_releases`): those named
by the changed KEPs' milestones, plus the newest two. Each file is a JSON
object keyed by pull request number; see :func:`parse_notes` for what is checked.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Collection
from pathlib import Path
from typing import NamedTuple

import httpx

from bot.errors import SourceError, UsageError
from bot.evidence import release_name, release_order
from bot.http import make_client, redact, send
from bot.kep import Problem
from bot.sources import parse_github_spec

DEFAULT_SOURCE = "github:kubernetes/sig-release@master"
DEFAULT_API_URL = "https://api.github.com"
DEFAULT_RAW_URL = "https://raw.githubusercontent.com"
#: How many of the newest releases are always read.
NEWEST = 2
#: Largest release-notes file accepted, bytes (the biggest upstream one is ~0.4 MB).
MAX_NOTES_BYTES = 32 * 1024 * 1024
_FILE_RE = re.compile(r"^release-notes-(\d+)\.(\d+)\.json$")
_DIR_RE = re.compile(r"^release-(\d+)\.(\d+)$")


class NotesSource(NamedTuple):
    """A parsed ``--release-notes`` value: ``kind`` ``dir`` (``location`` a path) or
    ``github`` (``location`` ``OWNER/REPO``, ``ref`` a branch, tag or SHA)."""

    kind: str
    location: str
    ref: str = ""


class ReleaseNotes(NamedTuple):
    """Release notes read for one run.

    - ``source``: printable source (no token);
    - ``available``: every release the source has (``vMAJOR.MINOR``), oldest first;
    - ``notes``: ``{release: {pr: entry}}`` for the releases read;
    - ``problems``: releases without notes, entries skipped, stale cache used.
    """

    source: str
    available: tuple[str, ...]
    notes: dict[str, dict[str, dict]]
    problems: tuple[Problem, ...]


def parse_notes_source(value: str) -> NotesSource:
    """Classify a ``--release-notes`` value; raises :class:`UsageError` for anything else."""
    spec = parse_github_spec(value, "--release-notes", "master")
    if spec:
        return NotesSource("github", *spec)
    path = Path(value).expanduser()
    if path.is_dir():
        return NotesSource("dir", str(path))
    raise UsageError(f"--release-notes {value!r}: not a directory of release-notes-1.NN.json files "
                     "nor github:OWNER/REPO@REF")


def select_releases(available: Collection[str], wanted: Collection[str] | None, newest: int = NEWEST) -> list[str]:
    """Releases to read, oldest first: ``wanted`` ∩ ``available`` plus the ``newest`` latest; all when ``wanted`` is None."""
    ordered = sorted(set(available), key=release_order)
    if wanted is None:
        return ordered
    pick = {r for r in (release_name(w) for w in wanted) if r} & set(ordered)
    pick |= set(ordered[-newest:] if newest else [])
    return [r for r in ordered if r in pick]


def parse_notes(where: str, data: bytes) -> tuple[dict[str, dict], list[Problem]]:
    """Decode one release-notes file: ``({pr: entry}, problems)``.

    Raises :class:`SourceError` naming ``where`` (and the line) when the bytes
    are not UTF-8 JSON or the top level is not an object. An entry that is not
    an object with a string ``text`` is skipped and reported by its key.
    """
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise SourceError(f"{where}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise SourceError(f"{where}: not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    if not isinstance(doc, dict):
        raise SourceError(f"{where}: expected a JSON object keyed by pull request number, found {type(doc).__name__}")
    entries, problems = {}, []
    for key, entry in doc.items():
        if isinstance(entry, dict) and isinstance(entry.get("text"), str):
            entries[key] = entry
        else:
            problems.append(Problem(where, key, "release-note entry has no text; skipped"))
    return entries, problems


def load_release_notes(value: str, cache_dir: Path, wanted: Collection[str] | None = None, *,
                       newest: int = NEWEST, api_url: str = DEFAULT_API_URL, raw_url: str = DEFAULT_RAW_URL,
                       token: str | None = None, client: httpx.Client | None = None) -> ReleaseNotes:
    """Read the release notes named by ``value`` for the releases ``wanted`` (``None``: all) plus the ``newest``.

    ``cache_dir`` is the run's cache directory (``config.cache_dir``); ``client``
    is reused for the ``github:`` form (one is made with ``token`` when None).
    Raises :class:`UsageError` for an unknown form and :class:`SourceError` when a
    source cannot be read and nothing is cached.
    """
    source = parse_notes_source(value)
    if source.kind == "dir":
        return _load_directory(Path(source.location), wanted, newest)
    own = client is None
    client = client or make_client(token)
    try:
        cache = _Cache(cache_dir / "release-notes" / hashlib.sha256(value.encode()).hexdigest()[:16])
        return _load_github(client, cache, source, wanted, newest, api_url.rstrip("/"), raw_url.rstrip("/"))
    finally:
        if own:
            client.close()


def _load_directory(root: Path, wanted: Collection[str] | None, newest: int) -> ReleaseNotes:
    files = {}
    for path in root.iterdir():
        m = _FILE_RE.match(path.name)
        if m and path.is_file():
            files[f"v{int(m.group(1))}.{int(m.group(2))}"] = path
    available = tuple(sorted(files, key=release_order))
    notes, problems = {}, []
    for release in select_releases(available, wanted, newest):
        path = files[release]
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise SourceError(f"{path}: cannot read release notes: {exc.strerror or exc}") from None
        notes[release], found = parse_notes(str(path), data)
        problems += found
    return ReleaseNotes(str(root), available, notes, tuple(problems))


class _Cache:
    """Body + ETag pairs on disk, written atomically (``NAME.body``, ``NAME.etag``)."""

    def __init__(self, root: Path):
        self.root = root

    def get(self, name: str) -> tuple[bytes, str] | None:
        try:
            return (self.root / f"{name}.body").read_bytes(), (self.root / f"{name}.etag").read_text().strip()
        except OSError:
            return None

    def put(self, name: str, body: bytes, etag: str) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        for suffix, data in ((".body", body), (".etag", etag.encode())):
            tmp = self.root / f".{name}{suffix}.tmp"
            tmp.write_bytes(data)
            os.replace(tmp, self.root / f"{name}{suffix}")


def _fetch(client: httpx.Client, cache: _Cache, name: str, url: str, problems: list[Problem],
           headers: dict[str, str] | None = None) -> bytes | None:
    """GET ``url`` with ``If-None-Match``; the body (fresh or cached), or ``None`` on 404."""
    cached = cache.get(name)
    headers = dict(headers or {})
    if cached and cached[1]:
        headers["If-None-Match"] = cached[1]
    what = f"GET {redact(url)}"
    try:
        response = send(client, "GET", url, headers=headers)
    except httpx.HTTPError as exc:
        if cached:
            problems.append(Problem(redact(url), "", f"{type(exc).__name__}; using the cached copy"))
            return cached[0]
        raise SourceError(f"{what}: {type(exc).__name__}: {redact(str(exc))}") from None
    if response.status_code == 304 and cached:
        return cached[0]
    if response.status_code == 404:
        return None
    if response.status_code != 200:
        if cached:
            problems.append(Problem(redact(url), "", f"HTTP {response.status_code}; using the cached copy"))
            return cached[0]
        raise SourceError(f"{what}: HTTP {response.status_code}")
    body = response.content
    if len(body) > MAX_NOTES_BYTES:
        raise SourceError(f"{what}: larger than {MAX_NOTES_BYTES} bytes, refused")
    cache.put(name, body, response.headers.get("etag", ""))
    return body


def _load_github(client: httpx.Client, cache: _Cache, source: NotesSource, wanted: Collection[str] | None,
                 newest: int, api_url: str, raw_url: str) -> ReleaseNotes:
    problems: list[Problem] = []
    listing_url = f"{api_url}/repos/{source.location}/contents/releases?ref={source.ref}"
    body = _fetch(client, cache, "releases", listing_url, problems,
                  headers={"Accept": "application/vnd.github+json"})
    if body is None:
        raise SourceError(f"GET {redact(listing_url)}: HTTP 404, no releases/ folder at {source.ref!r}")
    try:
        listing = json.loads(body)
        names = [item["name"] for item in listing if item.get("type") == "dir"]
    except (ValueError, TypeError, KeyError, AttributeError):
        raise SourceError(f"GET {redact(listing_url)}: not a contents API directory listing") from None
    available = tuple(sorted({f"v{int(m.group(1))}.{int(m.group(2))}" for m in map(_DIR_RE.match, names) if m},
                             key=release_order))
    notes: dict[str, dict[str, dict]] = {}
    for release in select_releases(available, wanted, newest):
        path = f"releases/release-{release[1:]}/release-notes/release-notes-draft.json"
        url = f"{raw_url}/{source.location}/{source.ref}/{path}"
        data = _fetch(client, cache, f"release-{release[1:]}", url, problems)
        if data is None:
            problems.append(Problem(f"{source.location}/{path}", "", f"no release notes for {release} (HTTP 404)"))
            continue
        notes[release], found = parse_notes(f"{source.location}@{source.ref}:{path}", data)
        problems += found
    return ReleaseNotes(f"github:{source.location}@{source.ref}", available, notes, tuple(problems))


def current_etags(value: str, client: httpx.Client, known: dict[str, str], *,
                  api_url: str = DEFAULT_API_URL) -> dict[str, str] | None:
    """The current version tags of a release-notes source, for the cheap no-change poll.

    Directory: ``{file: "SIZE-MTIME_NS"}`` of its ``release-notes-1.NN.json``
    files, no request. ``github:``: ONE conditional request,
    ``GET /repos/{owner}/{repo}/commits?path=releases&sha={ref}&per_page=1``
    with ``If-None-Match`` from ``known``; its ETag changes only when a commit
    touches ``releases/`` (GitHub REST "List commits"; a 304 costs no rate
    limit). Returns ``{url: ETag}``, or ``None`` when the server gave no ETag
    (unknown: the caller runs in full). Raises :class:`SourceError` on failure.
    """
    source = parse_notes_source(value)
    if source.kind == "dir":
        return {str(p): f"{p.stat().st_size}-{p.stat().st_mtime_ns}"
                for p in sorted(Path(source.location).iterdir()) if _FILE_RE.match(p.name)}
    url = f"{api_url.rstrip('/')}/repos/{source.location}/commits?path=releases&sha={source.ref}&per_page=1"
    headers = {"Accept": "application/vnd.github+json"}
    if known.get(url):
        headers["If-None-Match"] = known[url]
    try:
        response = send(client, "GET", url, headers=headers)
    except httpx.HTTPError as exc:
        raise SourceError(f"GET {redact(url)}: {type(exc).__name__}: {redact(str(exc))}") from None
    if response.status_code == 304 and known.get(url):
        return {url: known[url]}
    if response.status_code != 200:
        raise SourceError(f"GET {redact(url)}: HTTP {response.status_code}")
    etag = response.headers.get("etag", "")
    return {url: etag} if etag else None

