"""Read the release team's records (``--sig-release SRC``, ``release.sig_release``): each release's schedule
(``releases/release-1.NN/README.md``) and freeze exceptions (``releases/release-1.NN/exceptions.yaml``) of
``kubernetes/sig-release``, parsed by :mod:`bot.model.release_calendar`.

Forms: a local copy (the repository's root holding ``releases/``, or the ``releases/`` folder itself), or
``github:OWNER/REPO@REF`` (default ref ``master``; the repository of the release notes), read through the GitHub
REST contents API at ``github.api_url`` exactly as the release notes are (:mod:`bot.sources.release_notes`):
the ``releases/`` listing, then each file with ``Accept: application/vnd.github.raw``, every request
ETag-conditional and cached under ``CACHE_DIR/sig-release/`` (an unchanged file costs a ``304``; when the
network fails, the cached copy is used and a problem says so).

A file that cannot be read (not UTF-8, too large, HTTP error without a cached copy) and a date that cannot be
read are problems naming the file and line; that date is then unknown, never guessed. A release with no
``exceptions.yaml`` has no exceptions (1.24 and 1.37 have none). A source with no ``release-1.NN`` folder is a
configuration error (:class:`ConfigError`, exit 2); a ``github:`` source that cannot be reached with nothing
cached raises :class:`SourceError` (exit 1).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import ConfigError, SourceError, UsageError
from bot.fileread import read_regular
from bot.http import RequestCounter, client_or_new
from bot.model.kep import Problem
from bot.model.note_text import release_order
from bot.model.release_calendar import Calendar, FreezeException, Records, parse_calendar, parse_exceptions
from bot.redact import redact
from bot.sources import parse_github_spec
from bot.sources.etag_cache import EtagCache, fetch_cached, source_cache_dir
from bot.sources.release_notes import (
    DEFAULT_API_URL,
    RAW_MEDIA_TYPE,
    NotesSource,
    contents_url,
    fetch_releases_listing,
    release_dirs,
)

if TYPE_CHECKING:
    import httpx

#: Largest README.md or exceptions.yaml accepted, bytes (the biggest upstream one is ~20 KB).
MAX_RECORD_BYTES = 1024 * 1024
_DIR_RE = re.compile(r"^release-([0-9]{1,4})\.([0-9]{1,4})$")
FLAG = "release.sig_release (--sig-release)"


def parse_records_source(value: str) -> NotesSource:
    """Classify a ``--sig-release`` value: ``github`` (``OWNER/REPO``, ref) or ``dir`` (the ``releases/`` folder);
    raises :class:`UsageError` for anything else."""
    spec = parse_github_spec(value, "--sig-release", "master")
    if spec:
        return NotesSource("github", *spec)
    path = Path(value).expanduser()
    try:
        root = path / "releases" if (path / "releases").is_dir() else path
        is_dir = root.is_dir()
    except OSError as exc:
        raise UsageError(f"--sig-release {value!r}: cannot be read: {exc.strerror or exc}") from None
    if is_dir:
        return NotesSource("dir", str(root))
    raise UsageError(
        f"--sig-release {value!r}: not a copy of kubernetes/sig-release (releases/) nor github:OWNER/REPO@REF"
    )


def load_records(
    value: str,
    cache_dir: Path,
    *,
    api_url: str = DEFAULT_API_URL,
    token: str | None = None,
    client: httpx.Client | None = None,
    counter: RequestCounter | None = None,
) -> Records:
    """The :class:`~bot.model.release_calendar.Records` of every ``release-1.NN`` folder of ``value`` (see the
    module docstring for the forms, the cache and the errors raised)."""
    source = parse_records_source(value)
    if source.kind == "dir":
        return _load_directory(Path(source.location))
    with client_or_new(client, token, counter=counter) as client:
        cache_root = source_cache_dir(cache_dir, "sig-release", value)
        return _load_github(client, cache_root, source, api_url.rstrip("/"))


def _release(name: str) -> str:
    m = _DIR_RE.match(name)
    return f"v{int(m.group(1))}.{int(m.group(2))}" if m else ""


def _decode(where: str, data: bytes, problems: list[Problem]) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(Problem(where, "", f"not UTF-8 ({exc.reason} at byte {exc.start}); not read"))
        return None


def _parse(
    release: str,
    readme: bytes | None,
    exceptions: bytes | None,
    calendars: dict[str, Calendar],
    found: dict[str, tuple[FreezeException, ...]],
    problems: list[Problem],
) -> None:
    """Parse one release's two files into ``calendars`` / ``found`` (``None``: the file is absent)."""
    folder = f"release-{release[1:]}"
    where = f"{folder}/README.md"
    text = _decode(where, readme, problems) if readme is not None else None
    if text is not None:
        calendar, more = parse_calendar(release, where, text)
        calendars[release] = calendar
        problems += more
    where = f"{folder}/exceptions.yaml"
    text = _decode(where, exceptions, problems) if exceptions is not None else None
    if text is not None:
        items, more = parse_exceptions(release, where, text)
        found[release] = tuple(items)
        problems += more


def _read(path: Path, problems: list[Problem]) -> bytes | None:
    try:
        return read_regular(path, MAX_RECORD_BYTES)
    except FileNotFoundError:
        return None
    except OSError as exc:
        problems.append(Problem(str(path), "", f"cannot read: {exc.strerror or exc}; not read"))
        return None


def release_folders(root: Path) -> list[str]:
    """The names of the ``release-1.NN`` folders in ``root`` (the ``releases/`` folder), sorted by name; raises
    :class:`OSError` when ``root`` cannot be listed."""
    return sorted(p.name for p in root.iterdir() if p.is_dir() and _DIR_RE.match(p.name))


def _load_directory(root: Path) -> Records:
    try:
        names = release_folders(root)
    except OSError as exc:
        raise ConfigError(f"{FLAG} {str(root)!r}: cannot list: {exc.strerror or exc}") from None
    if not names:
        raise ConfigError(f"{FLAG} {str(root)!r}: no release-1.NN folder")
    calendars: dict[str, Calendar] = {}
    found: dict[str, tuple[FreezeException, ...]] = {}
    problems: list[Problem] = []
    for name in sorted(names, key=lambda n: release_order(_release(n))):
        release = _release(name)
        readme = _read(root / name / "README.md", problems)
        if readme is None:
            problems.append(Problem(f"{name}/README.md", "", "absent: no key dates for this release"))
        _parse(release, readme, _read(root / name / "exceptions.yaml", problems), calendars, found, problems)
    return Records(str(root), calendars, found, tuple(problems))


def _load_github(client: httpx.Client, cache_root: Path, source: NotesSource, api_url: str) -> Records:
    problems: list[Problem] = []
    cache = EtagCache(cache_root, problems)
    listing_url = contents_url(api_url, source, "releases")
    body = fetch_releases_listing(client, cache, listing_url, problems, MAX_RECORD_BYTES)
    if body is None:
        raise ConfigError(f"{FLAG} GET {redact(listing_url)}: HTTP 404, no releases/ folder at {source.ref!r}")
    names = sorted(
        (n for n in release_dirs(listing_url, body, problems) if _release(n)), key=lambda n: release_order(_release(n))
    )
    if not names:
        raise ConfigError(f"{FLAG} GET {redact(listing_url)}: no release-1.NN folder under releases/ at {source.ref!r}")
    calendars: dict[str, Calendar] = {}
    found: dict[str, tuple[FreezeException, ...]] = {}
    for name in names:
        files = []
        for file in ("README.md", "exceptions.yaml"):
            path = f"releases/{name}/{file}"
            try:
                data = fetch_cached(
                    client,
                    cache,
                    f"{name}-{file}",
                    contents_url(api_url, source, path),
                    problems,
                    headers={"Accept": RAW_MEDIA_TYPE},
                    max_bytes=MAX_RECORD_BYTES,
                )
            except SourceError as exc:  # one file lost, no cached copy: the others still count
                problems.append(Problem(f"{source.location}@{source.ref}:{path}", "", f"{exc}; not read"))
                data = None
            files.append(data)
        _parse(_release(name), files[0], files[1], calendars, found, problems)
    return Records(f"github:{source.location}@{source.ref}", calendars, found, tuple(problems))
