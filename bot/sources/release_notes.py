"""Fetch the release team's machine-readable release notes (``release-notes-1.NN.json``).

``--release-notes SRC`` forms (see :func:`parse_notes_source`):

1. a directory of ``release-notes-1.NN.json`` files (e.g. ``../shared/data/release-notes``);
2. ``github:OWNER/REPO@REF`` (default ``github:kubernetes/sig-release@master``): the
   ``releases/`` folder is listed with the contents API and each
   ``releases/release-1.NN/release-notes/release-notes-draft.json`` is read
   through the same API base URL (``github.api_url``, GitHub Enterprise Server
   included) with GitHub REST "Get repository content",
   ``GET /repos/{owner}/{repo}/contents/{path}?ref={ref}`` and
   ``Accept: application/vnd.github.raw`` (files up to 100 MB). No other host
   is asked, so the token only ever goes to ``api_url`` (httpx drops it on a
   redirect to another origin). Every request is ETag-conditional
   (``If-None-Match``); bodies and ETags are cached under
   ``CACHE_DIR/release-notes/``, so an unchanged file costs a
   ``304 Not Modified`` and no download. When the network fails, a cached copy
   is used and a problem says so.

Only the releases a run needs are read (:func:`select_releases`): those named
by the changed KEPs' milestones, plus the newest two. A needed release the
source has no notes for is a problem (:func:`with_missing`), so a reviewer
knows the check was partial. Each file is a JSON object keyed by pull request
number; see :func:`parse_notes` for what is checked.

Release notes are only evidence: a file that cannot be read or decoded (not
UTF-8, invalid JSON, nested too deeply, not an object, too large, HTTP error
without a cached copy) is a problem naming the file, and that release is
skipped. A source that holds no release notes at all is a configuration error
(:class:`ConfigError`, exit 2): a directory that cannot be listed, one
with no ``release-notes-1.NN.json``, one whose every file read is unusable, a
``github:`` repository with no ``releases/release-1.NN`` folder. A ``github:``
source that cannot be reached (network, HTTP 5xx, no cached copy) raises
:class:`SourceError` (exit 1).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar
from urllib.parse import quote

from bot.errors import ConfigError, KepSyncError, SourceError, UsageError
from bot.fileread import read_regular
from bot.http import RequestCounter, client_or_new, send, sendable_etag, status_text
from bot.model.kep import Problem
from bot.model.note_text import release_name, release_order
from bot.model.notes import ReleaseNotes, with_missing
from bot.model.notes import skipped_tail as _skipped
from bot.redact import redact, without_userinfo
from bot.sources import parse_github_spec
from bot.sources.etag_cache import EtagCache, fetch_cached, source_cache_dir

if TYPE_CHECKING:
    import httpx

DEFAULT_SOURCE = "github:kubernetes/sig-release@master"
DEFAULT_API_URL = "https://api.github.com"
#: Media type asking the contents API for the file's bytes (GitHub REST "Get repository content").
RAW_MEDIA_TYPE = "application/vnd.github.raw"
#: How many of the newest releases are always read.
NEWEST = 2
#: Largest release-notes file accepted, bytes (the biggest upstream one is ~0.4 MB).
MAX_NOTES_BYTES = 32 * 1024 * 1024
_FILE_RE = re.compile(r"^release-notes-([0-9]{1,4})\.([0-9]{1,4})\.json$")
_DIR_RE = re.compile(r"^release-([0-9]{1,4})\.([0-9]{1,4})$")


T = TypeVar("T")


class Reads:
    """What one run has read from a release-notes source, by key (the list of releases, one release's file), so
    a second :func:`load_release_notes` of the run (another set of wanted releases: a sync's review, then its
    watch) reads nothing twice: each read's answer, its error (``OSError`` or
    :class:`~bot.errors.KepSyncError`, raised again) and the problems it added are kept and given again.
    ``count``: how many reads went to the source."""

    def __init__(self) -> None:
        self.count = 0
        self._done: dict[tuple[str, ...], tuple[object, BaseException | None, list[Problem]]] = {}

    def once(self, key: tuple[str, ...], problems: list[Problem], read: Callable[[], T]) -> T:
        """``read()`` the first time ``key`` is asked, its kept answer after; ``problems`` gets the problems that
        read added (to ``problems`` or the cache's list) each time."""
        if key not in self._done:
            self.count += 1
            start = len(problems)
            try:
                self._done[key] = (read(), None, problems[start:])
            except (OSError, KepSyncError) as exc:
                self._done[key] = (None, exc, problems[start:])
            del problems[start:]
        value, error, told = self._done[key]
        problems.extend(told)
        if error is not None:
            raise error
        return value  # type: ignore[return-value]


class NotesSource(NamedTuple):
    """A parsed ``--release-notes`` value: ``kind`` ``dir`` (``location`` a path) or
    ``github`` (``location`` ``OWNER/REPO``, ``ref`` a branch, tag or SHA)."""

    kind: str
    location: str
    ref: str = ""


def parse_notes_source(value: str) -> NotesSource:
    """Classify a ``--release-notes`` value; raises :class:`UsageError` for anything else."""
    spec = parse_github_spec(value, "--release-notes", "master")
    if spec:
        return NotesSource("github", *spec)
    path = Path(value).expanduser()
    try:
        is_dir = path.is_dir()
    except OSError as exc:  # e.g. a name too long, a directory this user may not search
        raise UsageError(f"--release-notes {value!r}: cannot be read: {exc.strerror or exc}") from None
    if is_dir:
        return NotesSource("dir", str(path))
    raise UsageError(
        f"--release-notes {value!r}: not a directory of release-notes-1.NN.json files nor github:OWNER/REPO@REF"
    )


def select_releases(available: Collection[str], wanted: Collection[str] | None, newest: int = NEWEST) -> list[str]:
    """Releases to read, oldest first: ``wanted`` ∩ ``available`` plus the ``newest`` latest; all when ``wanted`` is
    None."""
    ordered = sorted(set(available), key=release_order)
    if wanted is None:
        return ordered
    pick = {r for r in (release_name(w) for w in wanted) if r} & set(ordered)
    pick |= set(ordered[-newest:] if newest else [])
    return [r for r in ordered if r in pick]


def parse_notes(
    where: str, data: bytes, release: str = ""
) -> tuple[dict[str, dict[str, object]] | None, list[Problem]]:
    """Decode one release-notes file of ``release`` (``vMAJOR.MINOR``): ``({pr: entry}, problems)``.

    A file that is not UTF-8, not valid JSON, nested too deeply for the
    decoder (``RecursionError``) or not a JSON object gives ``(None, [problem])``:
    the problem's ``path`` is ``where``, and its message says why (byte offset;
    line and column for invalid JSON) and ends "evidence and checks for
    RELEASE were skipped". An entry that is not an object with a string
    ``text`` is skipped and reported by its key; a ``do_not_publish`` that is
    not a JSON boolean is read as :func:`_withdrawn_as_bool` says and reported
    by its key. Never raises for bad content.
    """
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return None, [_unusable(where, release, f"not UTF-8 ({exc.reason} at byte {exc.start})")]
    except json.JSONDecodeError as exc:
        return None, [_unusable(where, release, f"not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}")]
    except RecursionError:
        return None, [_unusable(where, release, "JSON nested too deeply to decode")]
    if not isinstance(doc, dict):
        return None, [
            _unusable(
                where, release, f"expected a JSON object keyed by pull request number, found {type(doc).__name__}"
            )
        ]
    entries: dict[str, dict[str, object]] = {}
    problems: list[Problem] = []
    for key, entry in doc.items():
        if isinstance(entry, dict) and isinstance(entry.get("text"), str):
            entries[key] = _withdrawn_as_bool(where, key, entry, problems)
        else:
            problems.append(Problem(where, key, "release-note entry has no text; skipped"))
    return entries, problems


#: ``do_not_publish`` values read as "not withdrawn"; any other non-boolean value counts as withdrawn.
_CLEARLY_FALSE = ("false", "no", "off", "0", "0.0", "")


def _withdrawn_as_bool(where: str, key: str, entry: dict[str, object], problems: list[Problem]) -> dict[str, object]:
    """``entry`` with ``do_not_publish`` as a boolean. A value of another type (``"true"``, ``1``) is read as
    withdrawn (never evidence) unless it clearly says false (``"false"``, ``0``, ``"no"``...), and is reported
    naming the file ``where`` and the entry ``key``. Release-note schema: kubernetes/release, pkg/notes."""
    value = entry.get("do_not_publish")
    if value is None or isinstance(value, bool):
        return entry
    shown = str(value).strip().casefold() if isinstance(value, (str, int, float)) else "?"
    withdrawn = shown not in _CLEARLY_FALSE
    problems.append(
        Problem(
            where,
            key,
            f"do_not_publish is {json.dumps(value)[:40]} ({type(value).__name__}), not "
            f"true/false; read as {'true (withdrawn: never evidence)' if withdrawn else 'false'}",
        )
    )
    return {**entry, "do_not_publish": withdrawn}


def _unusable(where: str, release: str, why: str) -> Problem:
    """The problem for a release-notes file that cannot be used: ``(where, "", "WHY; ... were skipped")``."""
    return Problem(where, "", f"{why}; {_skipped(release or 'this release')}")


def load_release_notes(
    value: str,
    cache_dir: Path,
    wanted: Collection[str] | None = None,
    *,
    newest: int = NEWEST,
    api_url: str = DEFAULT_API_URL,
    token: str | None = None,
    client: httpx.Client | None = None,
    counter: RequestCounter | None = None,
    reads: Reads | None = None,
) -> ReleaseNotes:
    """Read the release notes named by ``value`` for the releases ``wanted`` (``None``: all) plus the ``newest``.

    ``cache_dir`` is the run's cache directory (``config.cache_dir``); ``client``
    is reused for the ``github:`` form (one is made with ``token`` and ``counter`` when None; none for a directory);
    every request goes to ``api_url`` (``github.api_url``), never elsewhere. ``reads``: what this run read of
    the source already (:class:`Reads`), so no file is read twice; a fresh one when ``None``.
    ``problems`` name every ``wanted`` release without notes (see :func:`with_missing`)
    and every file that could not be used (its release is left out of ``notes``).
    Raises :class:`UsageError` for an unknown form, :class:`ConfigError` for a source
    with no release notes (see the module docstring) and :class:`SourceError` when a
    ``github:`` source cannot be reached and nothing is cached.
    """
    source = parse_notes_source(value)
    reads = reads if reads is not None else Reads()
    if source.kind == "dir":
        return with_missing(_load_directory(Path(source.location), wanted, newest, reads), wanted or ())
    with client_or_new(client, token, counter=counter) as client:
        cache_root = source_cache_dir(cache_dir, "release-notes", value)
        read = _load_github(client, cache_root, source, wanted, newest, api_url.rstrip("/"), reads)
        return with_missing(read, wanted or ())


def _list_directory(root: Path) -> dict[str, Path]:
    """``{release: path}`` of the ``release-notes-1.NN.json`` files in ``root``; raises :class:`ConfigError` when it
    cannot be listed."""
    try:
        children = sorted(root.iterdir())
    except OSError as exc:
        raise ConfigError(
            f"release_notes.source (--release-notes) {str(root)!r}: cannot list release notes: {exc.strerror or exc}"
        ) from None
    files = {}
    for path in children:
        m = _FILE_RE.match(path.name)
        if m and not path.is_dir():  # anything else that is not a regular file fails below, as a problem
            files[f"v{int(m.group(1))}.{int(m.group(2))}"] = path
    return files


def _load_directory(
    root: Path, wanted: Collection[str] | None, newest: int, reads: Reads | None = None
) -> ReleaseNotes:
    reads = reads if reads is not None else Reads()
    notes: dict[str, dict[str, dict[str, object]]] = {}
    problems: list[Problem] = []
    skipped: set[str] = set()
    files = reads.once(("list",), problems, lambda: _list_directory(root))
    available = tuple(sorted(files, key=release_order))
    if not available:
        raise ConfigError(
            f"release_notes.source (--release-notes) {str(root)!r}: no release-notes-1.NN.json file in the directory"
        )
    for release in select_releases(available, wanted, newest):
        path = files[release]
        try:
            data = reads.once(("file", release), problems, partial(read_regular, path, MAX_NOTES_BYTES))
        except OSError as exc:
            problems.append(_unusable(str(path), release, f"cannot read release notes: {exc.strerror or exc}"))
            skipped.add(release)
            continue
        read, found = parse_notes(str(path), data, release)
        if read is not None:
            notes[release] = read
        else:
            skipped.add(release)
        problems += found
    if not notes and skipped:
        lines = []
        for problem in problems:  # each says why its file is unusable; the "were skipped" tail adds nothing here
            message = problem.message
            for release in skipped:
                message = message.removesuffix(f"; {_skipped(release)}")
            lines.append(f"{problem.path}: {message}")
        why = "\n".join(lines)
        raise ConfigError(
            f"release_notes.source (--release-notes) {str(root)!r}: the source has no usable release "
            f"notes (every release-notes file read is unusable; nothing was checked):\n{why}"
        )
    return ReleaseNotes(str(root), available, notes, tuple(problems), frozenset(skipped))


def _decodes(data: bytes) -> bool:
    """True when ``data`` decodes as a release-notes file (:func:`parse_notes`)."""
    return parse_notes("", data)[0] is not None


def fetch_releases_listing(
    client: httpx.Client, cache: EtagCache, listing_url: str, problems: list[Problem], max_bytes: int
) -> bytes | None:
    """The contents-API listing of ``releases/`` at ``listing_url`` (ETag-conditional, kept in ``cache`` as
    ``releases``; at most ``max_bytes``), ``None`` for a 404; shared by the release notes and the release team's
    records, which read the same repository."""
    return fetch_cached(
        client,
        cache,
        "releases",
        listing_url,
        problems,
        headers={"Accept": "application/vnd.github+json"},
        usable=is_listing,
        max_bytes=max_bytes,
    )


def contents_url(api_url: str, source: NotesSource, path: str) -> str:
    """``{api_url}/repos/{owner}/{repo}/contents/{path}?ref={ref}``, the ref percent-encoded."""
    return f"{api_url}/repos/{source.location}/contents/{path}?ref={quote(source.ref, safe='')}"


def is_listing(body: bytes) -> bool:
    """True when ``body`` decodes as a JSON array (a contents API directory listing)."""
    try:
        return isinstance(json.loads(body), list)
    except (ValueError, RecursionError):
        return False


def release_dirs(listing_url: str, body: bytes, problems: list[Problem]) -> list[str]:
    """Names of the ``type: dir`` items of a contents API listing; raises :class:`SourceError` when it is not one.

    Items that are not objects with a string ``name`` and ``type`` are skipped and
    counted in one problem (path the listing URL).
    """
    try:
        listing = json.loads(body)
    except (ValueError, RecursionError):
        listing = None
    if not isinstance(listing, list):
        raise SourceError(f"GET {redact(listing_url)}: not a contents API directory listing")
    ok = [
        isinstance(item, dict) and isinstance(item.get("name"), str) and isinstance(item.get("type"), str)
        for item in listing
    ]
    if not all(ok):
        problems.append(
            Problem(
                redact(listing_url),
                "",
                f"{ok.count(False)} item(s) of the directory listing are "
                "not objects with a string name and type (first at index "
                f"{ok.index(False)}); skipped",
            )
        )
    return [item["name"] for item, good in zip(listing, ok, strict=True) if good and item["type"] == "dir"]


def _load_github(
    client: httpx.Client,
    cache_root: Path,
    source: NotesSource,
    wanted: Collection[str] | None,
    newest: int,
    api_url: str,
    reads: Reads,
) -> ReleaseNotes:
    problems: list[Problem] = []
    cache = EtagCache(cache_root, problems)
    listing_url = contents_url(api_url, source, "releases")
    body = reads.once(
        ("list",), problems, lambda: fetch_releases_listing(client, cache, listing_url, problems, MAX_NOTES_BYTES)
    )
    if body is None:
        raise ConfigError(
            f"release_notes.source (--release-notes) GET {redact(listing_url)}: HTTP 404, no "
            f"releases/ folder at {source.ref!r}"
        )
    names = release_dirs(listing_url, body, problems)
    available = tuple(
        sorted({f"v{int(m.group(1))}.{int(m.group(2))}" for m in map(_DIR_RE.match, names) if m}, key=release_order)
    )
    if not available:
        raise ConfigError(
            f"release_notes.source (--release-notes) GET {redact(listing_url)}: no "
            f"release-1.NN folder under releases/ at {source.ref!r}"
        )
    notes: dict[str, dict[str, dict]] = {}
    skipped: set[str] = set()
    for release in select_releases(available, wanted, newest):
        path = f"releases/release-{release[1:]}/release-notes/release-notes-draft.json"
        where = f"{source.location}@{source.ref}:{path}"
        try:
            data = reads.once(
                ("file", release),
                problems,
                partial(
                    fetch_cached,
                    client,
                    cache,
                    f"release-{release[1:]}",
                    contents_url(api_url, source, path),
                    problems,
                    headers={"Accept": RAW_MEDIA_TYPE},
                    max_bytes=MAX_NOTES_BYTES,
                    usable=_decodes,
                ),
            )
        except SourceError as exc:  # one file lost, no cached copy: the others still count
            problems.append(_unusable(where, release, str(exc)))
            skipped.add(release)
            continue
        if data is None:
            if release not in {release_name(w) for w in wanted or ()}:  # a wanted one is told by with_missing
                problems.append(Problem(f"{source.location}/{path}", "", f"no release notes for {release} (HTTP 404)"))
            continue
        read, found = parse_notes(where, data, release)
        if read is not None:
            notes[release] = read
        else:
            skipped.add(release)
        problems += found
    return ReleaseNotes(f"github:{source.location}@{source.ref}", available, notes, tuple(problems), frozenset(skipped))


def current_etags(
    value: str, client: httpx.Client, known: dict[str, str], *, api_url: str = DEFAULT_API_URL
) -> dict[str, str] | None:
    """The current version tags of a release-notes source, for the cheap no-change poll.

    Directory: ``{file: "SIZE-MTIME_NS"}`` of its ``release-notes-1.NN.json``
    files, no request. ``github:``: ONE conditional request,
    ``GET /repos/{owner}/{repo}/commits?path=releases&sha={ref}&per_page=1``
    with ``If-None-Match`` from ``known``; its ETag changes only when a commit
    touches ``releases/`` (GitHub REST "List commits"; a 304 costs no rate
    limit). Returns ``{url: ETag}``, or ``None`` when the server gave no ETag
    (unknown: the caller runs in full) or one that is not printable ASCII
    (:func:`bot.http.sendable_etag`). Raises :class:`SourceError` on failure.
    """
    source = parse_notes_source(value)
    if source.kind == "dir":
        return {
            str(p): f"{p.stat().st_size}-{p.stat().st_mtime_ns}"
            for p in sorted(Path(source.location).iterdir())
            if _FILE_RE.match(p.name)
        }
    import httpx  # loaded for a github: source only

    url = (
        f"{api_url.rstrip('/')}/repos/{source.location}/commits?path=releases&sha={quote(source.ref, safe='')}"
        "&per_page=1"
    )
    headers = {"Accept": "application/vnd.github+json"}
    key = without_userinfo(url)  # the state keeps it: never the API URL's user-info
    etag = sendable_etag(known.get(key, ""))  # a state file may hold anything: never send what httpx refuses
    if etag:
        headers["If-None-Match"] = etag
    try:
        response = send(client, "GET", url, headers=headers)
    except httpx.HTTPError as exc:
        raise SourceError(f"GET {redact(url)}: {type(exc).__name__}: {redact(str(exc))}") from None
    if response.status_code == 304 and etag:
        return {key: etag}
    if response.status_code != 200:
        raise SourceError(f"GET {redact(url)}: {status_text(response)}")
    etag = sendable_etag(response.headers.get("etag", ""))
    return {key: etag} if etag else None
