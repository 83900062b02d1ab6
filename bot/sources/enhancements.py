"""Fetch the kubernetes/enhancements metadata files and build a :class:`~bot.model.snapshot.Snapshot`.

``--enhancements SRC`` forms (see :func:`parse_source`):

1. a directory that contains ``keps/`` (revision: its git HEAD, if it is a checkout);
2. a local ``.tar.gz`` / ``.tgz`` tarball holding ``TOP/keps/...`` (the offline snapshot in
   ``examples/``, made by ``scripts/gen/make_snapshot.py``; revision: the commit SHA in its pax header);
3. a git repository: a local path, ``file://`` or ``https://`` URL, or a bundle
   file; cloned once (bare) into the cache directory and fetched on later runs;
4. ``github:OWNER/REPO@REF``: REF resolved to a commit SHA with one API call,
   that commit's tarball streamed with httpx and read in memory (``sync``, ``audit`` and ``serve`` read it
   through :mod:`bot.sources.upstream` instead: incrementally, cached by commit in the cache directory).

Only ``keps/**/kep.yaml`` and ``keps/prod-readiness/**.yaml`` are read, and only
regular files: links, devices, unreadable and oversized files are reported as
problems (``Snapshot.problems``), never followed. Every path is valid text
(names that are not UTF-8 get U+FFFD). Downloads are capped in bytes (body,
decompressed stream) and in time (overall deadline), see the ``MAX_*`` limits.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from bot import progress
from bot.errors import SourceError, UsageError, relative_to
from bot.fileread import open_regular
from bot.http import RequestCounter, client_or_new, refused
from bot.model.kep import Problem
from bot.model.snapshot import Snapshot, build_snapshot
from bot.redact import redact
from bot.sources import parse_github_spec
from bot.sources.git import (
    NoDefaultBranch,
    clean_head,
    read_git_tree,
    remote_head,
    run_git,
    scan_git_tree,
    sync_git_cache,
    worktree_head,
)
from bot.sources.github_tarball import (
    DEFAULT_API_URL,
    MAX_TARBALL_BYTES,
    Revision,
    github_url,
    probe_github_ref,
    read_tarball,
    resolve_github_ref,
)
from bot.sources.localfs import scan_directory, text_path
from bot.sources.tarball import is_tarball_path, read_local_tarball, tarball_revision

if TYPE_CHECKING:
    import httpx

__all__ = [
    "DEFAULT_API_URL",
    "MAX_TARBALL_BYTES",
    "Revision",
    "Source",
    "current_revision",
    "github_url",
    "load_snapshot",
    "parse_source",
    "probe_github_ref",
    "read_directory",
    "read_git_tree",
    "read_tarball",
    "resolve_github_ref",
    "scan_git_tree",
    "sync_git_cache",
    "with_problems",
]


class Source(NamedTuple):
    """A parsed ``--enhancements`` value: ``kind`` is ``dir``, ``tarball``, ``git`` or ``github``.

    ``location`` is the path, URL or ``OWNER/REPO``; ``ref`` the GitHub ref (``github`` only).
    """

    kind: str
    location: str
    ref: str = ""


def parse_source(value: str) -> Source:
    """Classify an ``--enhancements`` value.

    Raises :class:`UsageError` for an empty value, an invalid ``github:`` form
    (:func:`bot.sources.parse_github_spec`) and anything that is not a source.
    """
    spec = parse_github_spec(value, "enhancements (--enhancements)", "HEAD")
    if spec:
        return Source("github", *spec)
    if re.match(r"^(https?|file|ssh|git)://", value):
        return Source("git", value)
    try:
        return _local_source(value, Path(value).expanduser())
    except OSError as exc:  # e.g. a name too long, a directory this user may not search
        raise UsageError(f"enhancements (--enhancements) {value!r}: cannot be read: {exc.strerror or exc}") from None


def _local_source(value: str, path: Path) -> Source:
    """:func:`parse_source` for a path on this machine; ``OSError`` from the checks propagates."""
    if path.is_dir() and (path / "keps").is_dir():
        return Source("dir", str(path))
    if path.is_file() and is_tarball_path(path):
        return Source("tarball", str(path))
    if path.is_file() and not _is_bundle(path):
        raise UsageError(
            f"enhancements (--enhancements) {value!r}: a file that is neither a .tar.gz snapshot nor a "
            f"git bundle (its first line is not {BUNDLE_HEADERS[0]!r} or {BUNDLE_HEADERS[1]!r})"
        )
    if path.is_file() or (path.is_dir() and ((path / "HEAD").is_file() or (path / ".git").exists())):
        return Source("git", str(path.resolve()))
    raise not_enhancements(value)


def not_enhancements(value: str, why: str = "") -> UsageError:
    """The usage error (exit 2) for an ``--enhancements`` that is no kubernetes/enhancements: a plain folder, or
    a local git repository or bundle with no readable ``keps/`` (``why`` says what was found)."""
    return UsageError(
        f"enhancements (--enhancements) {value!r}: {why + '; ' if why else ''}not a directory with keps/, a "
        f".tar.gz snapshot, a git repository, a bundle, a URL or github:OWNER/REPO@REF"
        f"{relative_to(value)}"
    )


#: Said when a ``github:`` source cannot be read: how to run from a copy on this machine.
OFFLINE_HINT = (
    "offline, or GitHub unreachable? read the KEPs from a copy on this machine with --enhancements PATH: "
    "a clone of kubernetes/enhancements, a git bundle, or a snapshot tarball such as "
    "examples/enhancements-*.tar.gz in the kep-sync repository"
)


def unreachable(exc: SourceError) -> bool:
    """True when ``exc`` says the network could not answer (no connection, a timeout, a server error), not that
    what was asked for does not exist (GitHub's ``HTTP 404`` or ``HTTP 422``) nor that GitHub refused the
    credentials (:func:`bot.http.refused`: a ``401``, a ``403`` that is no rate limit)."""
    return not re.search(r"\bHTTP (404|422)\b", str(exc)) and not refused(str(exc))


@contextlib.contextmanager
def offline_hint() -> Iterator[None]:
    """Around a read of a ``github:`` enhancements source: a :class:`SourceError` that says the network could not
    answer (:func:`unreachable`) gets :data:`OFFLINE_HINT` as its last line (once), for every command and
    the service alike; any other error passes unchanged."""
    try:
        yield
    except SourceError as exc:
        if not unreachable(exc) or OFFLINE_HINT in str(exc):
            raise
        raise SourceError(f"{exc}\n{OFFLINE_HINT}") from None


#: First line of a git bundle (git-bundle(5): format v2 and v3).
BUNDLE_HEADERS = ("# v2 git bundle", "# v3 git bundle")


def _is_bundle(path: Path) -> bool:
    """True when the file at ``path`` starts with a git bundle header line (:data:`BUNDLE_HEADERS`)."""
    try:
        with open_regular(path) as fh:
            head = fh.read(len(BUNDLE_HEADERS[0]) + 1)
    except OSError:
        return True  # unreadable: let git say why
    return head.rstrip(b"\r\n").decode("ascii", "replace") in BUNDLE_HEADERS


def load_snapshot(
    value: str,
    cache_dir: Path,
    *,
    api_url: str = DEFAULT_API_URL,
    token: str | None = None,
    client: httpx.Client | None = None,
    counter: RequestCounter | None = None,
) -> Snapshot:
    """Read the KEPs named by ``value`` (an ``--enhancements`` string) into a Snapshot.

    ``cache_dir`` holds git clones; ``client`` is reused for the ``github:`` form
    (one is made when ``None``, with ``token`` and ``counter``; none for a directory or git source). Raises
    :class:`UsageError` for an unknown form,
    :class:`SourceError` when the source cannot be read.
    """
    source = parse_source(value)
    if source.kind == "dir":
        root = Path(source.location)
        files, problems = scan_directory(root)
        return with_problems(build_snapshot(files, text_path(value), worktree_head(root)), problems)
    if source.kind == "tarball":
        files, problems, revision = read_local_tarball(Path(source.location))
        return with_problems(build_snapshot(files, text_path(value), revision), problems)
    if source.kind == "git":
        local = Path(source.location).exists()  # a path on this machine: a wrong one is the user's to fix (exit 2)
        try:
            repo = sync_git_cache(source.location, cache_dir)
        except NoDefaultBranch as exc:
            if local:
                raise not_enhancements(value, "a git repository with no HEAD and no single default branch") from exc
            raise
        revision = run_git(repo, "rev-parse", "HEAD").strip()
        if not run_git(repo, "ls-tree", revision, "--", "keps").strip():
            if local:
                raise not_enhancements(value, f"a git repository with no keps/ folder at revision {revision[:12]}")
            raise SourceError(
                f"{text_path(redact(source.location))}: no keps/ folder at revision {revision}; "
                "refused, not read as every KEP gone"
            )
        files, problems = scan_git_tree(repo, revision)
        return with_problems(build_snapshot(files, text_path(redact(value)), revision), problems)
    with client_or_new(client, token, counter=counter) as client:
        with offline_hint():
            revision = resolve_github_ref(client, api_url, source.location, source.ref)
            with progress.step(f"downloading {source.location}@{revision[:12]}"):
                files, problems = read_tarball(client, api_url, source.location, revision)
    return with_problems(build_snapshot(files, f"github:{source.location}@{source.ref}", revision), problems)


def with_problems(snap: Snapshot, problems: Iterable[Problem]) -> Snapshot:
    """``snap`` with the source's file-level ``problems`` merged into ``snap.problems`` (sorted)."""
    return snap._replace(problems=tuple(sorted(snap.problems + tuple(problems))))


def read_directory(root: Path) -> Iterator[tuple[str, bytes]]:
    """Yield ``(relative path, bytes)`` for every kep.yaml and PRR file under ``root/keps``, sorted by path.

    Only regular files; the problems met (links, unreadable or oversized files)
    are dropped here: use :func:`bot.sources.localfs.scan_directory` to get them.
    """
    yield from scan_directory(root)[0]


def current_revision(value: str, client: httpx.Client, *, api_url: str = DEFAULT_API_URL, etag: str = "") -> Revision:
    """The revision ``value`` (an ``--enhancements`` string) points at now, with ONE request.

    - ``github:OWNER/REPO@REF``: ``GET /repos/{owner}/{repo}/commits/{ref}`` with
      ``Accept: application/vnd.github.sha`` and ``If-None-Match: etag`` (GitHub REST
      docs: a ``304`` answer does not count against the rate limit);
    - a git repository, URL or bundle: ``git ls-remote`` (``HEAD``, else the only
      branch, else ``master``/``main``, as the clone in :func:`sync_git_cache` picks);
    - a directory: its git ``HEAD`` (``""`` when it is not a checkout, or when ``keps/`` in its work tree
      differs from ``HEAD``: a sync reads the work tree; :func:`bot.sources.git.clean_head`);
    - a local tarball: the commit SHA in its pax header (no request).

    Raises :class:`UsageError` for an unknown form, :class:`SourceError` when the source cannot be read.
    """
    source = parse_source(value)
    if source.kind == "dir":
        return Revision(clean_head(Path(source.location)))
    if source.kind == "tarball":
        return Revision(tarball_revision(Path(source.location)))
    if source.kind == "git":
        return Revision(remote_head(source.location))
    with offline_hint():
        return probe_github_ref(client, api_url, source.location, source.ref, etag)
