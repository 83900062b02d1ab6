"""Fetch the kubernetes/enhancements metadata files and build a :class:`~bot.snapshot.Snapshot`.

``--enhancements SRC`` forms (see :func:`parse_source`):

1. a directory that contains ``keps/`` (revision: its git HEAD, if it is a checkout);
2. a git repository: a local path, ``file://`` or ``https://`` URL, or a bundle
   file; cloned once (bare) into the cache directory and fetched on later runs;
3. ``github:OWNER/REPO@REF``: REF resolved to a commit SHA with one API call,
   that commit's tarball streamed with httpx and read in memory.

Only ``keps/**/kep.yaml`` and ``keps/prod-readiness/**.yaml`` are read, and only
regular files: links, devices, unreadable and oversized files are reported as
problems (``Snapshot.problems``), never followed. Every path is valid text
(names that are not UTF-8 get U+FFFD). Downloads are capped in bytes (body,
decompressed stream) and in time (overall deadline), see the ``MAX_*`` limits.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import re
import subprocess
import tarfile
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path, PurePosixPath
from typing import NamedTuple
from urllib.parse import quote

import httpx

from bot.errors import SourceError, UsageError
from bot.http import make_client, redact, send
from bot.kep import Problem
from bot.snapshot import Snapshot, build_snapshot, is_kep_file, is_prr_file
from bot.sources import is_valid_name, is_valid_ref, parse_github_spec
from bot.sources.limits import Deadline, LimitedReader, chunk_reader
from bot.sources.localfs import LINK, MAX_FILE_BYTES, NOT_UTF8, decode_path, scan_directory, text_path

#: Largest tarball body accepted, bytes (the full enhancements tarball is ~40 MB).
MAX_TARBALL_BYTES = 256 * 1024 * 1024
#: Largest tarball once decompressed, bytes (the full enhancements tree is ~150 MB).
MAX_UNPACKED_BYTES = 1024 * 1024 * 1024
#: Overall deadline of a tarball download, seconds (retries included).
MAX_DOWNLOAD_SECONDS = 300.0
#: Largest answer to the ref lookup, bytes (the answer is a 40-character SHA).
MAX_REF_BYTES = 4096
#: Overall deadline of the ref lookup, seconds (retries included).
MAX_REF_SECONDS = 30.0
DEFAULT_API_URL = "https://api.github.com"


class Source(NamedTuple):
    """A parsed ``--enhancements`` value: ``kind`` is ``dir``, ``git`` or ``github``.

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
    spec = parse_github_spec(value, "--enhancements", "HEAD")
    if spec:
        return Source("github", *spec)
    if re.match(r"^(https?|file|ssh|git)://", value):
        return Source("git", value)
    path = Path(value).expanduser()
    if path.is_dir() and (path / "keps").is_dir():
        return Source("dir", str(path))
    if path.is_file() or (path.is_dir() and ((path / "HEAD").is_file() or (path / ".git").exists())):
        return Source("git", str(path.resolve()))
    raise UsageError(f"--enhancements {value!r}: not a directory with keps/, a git repository, a bundle, "
                     "a URL or github:OWNER/REPO@REF")


def load_snapshot(value: str, cache_dir: Path, *, api_url: str = DEFAULT_API_URL,
                  token: str | None = None, client: httpx.Client | None = None) -> Snapshot:
    """Read the KEPs named by ``value`` (an ``--enhancements`` string) into a Snapshot.

    ``cache_dir`` holds git clones; ``client`` is reused for the ``github:`` form
    (one is made when ``None``). Raises :class:`UsageError` for an unknown form,
    :class:`SourceError` when the source cannot be read.
    """
    source = parse_source(value)
    if source.kind == "dir":
        root = Path(source.location)
        files, problems = scan_directory(root)
        return with_problems(build_snapshot(files, text_path(str(root)), _git_head(root)), problems)
    if source.kind == "git":
        repo = sync_git_cache(source.location, cache_dir)
        revision = _git(repo, "rev-parse", "HEAD").strip()
        files, problems = scan_git_tree(repo, revision)
        return with_problems(build_snapshot(files, text_path(redact(source.location)), revision), problems)
    own = client is None
    client = client or make_client(token)
    try:
        revision = resolve_github_ref(client, api_url, source.location, source.ref)
        files, problems = read_tarball(client, api_url, source.location, revision)
    finally:
        if own:
            client.close()
    return with_problems(build_snapshot(files, f"github:{source.location}@{source.ref}", revision), problems)


def with_problems(snap: Snapshot, problems: Iterable[Problem]) -> Snapshot:
    """``snap`` with the source's file-level ``problems`` merged into ``snap.problems`` (sorted)."""
    return snap._replace(problems=tuple(sorted(snap.problems + tuple(problems))))


# -- directory -----------------------------------------------------------------------------

def read_directory(root: Path) -> Iterator[tuple[str, bytes]]:
    """Yield ``(relative path, bytes)`` for every kep.yaml and PRR file under ``root/keps``, sorted by path.

    Only regular files; the problems met (links, unreadable or oversized files)
    are dropped here: use :func:`bot.sources.localfs.scan_directory` to get them.
    """
    yield from scan_directory(root)[0]


def _git_head(root: Path) -> str:
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "-q", "HEAD"],
                             capture_output=True, text=True, check=False)
    except FileNotFoundError:
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


# -- git -------------------------------------------------------------------------------------

def _git_bytes(repo: Path, *args: str) -> bytes:
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False)
    if proc.returncode != 0:
        raise SourceError(f"git {args[0]} in {text_path(str(repo))} failed: "
                          f"{redact(proc.stderr.decode(errors='replace').strip())}")
    return proc.stdout


def _git(repo: Path, *args: str) -> str:
    return _git_bytes(repo, *args).decode(errors="replace")


def sync_git_cache(url: str, cache_dir: Path) -> Path:
    """Clone ``url`` bare into ``cache_dir/git/<hash>`` the first time, fetch it afterwards.

    Returns the bare repository path; its ``HEAD`` is the source's default branch head.
    Raises :class:`SourceError` when git fails (the message is redacted).
    """
    repo = cache_dir / "git" / hashlib.sha256(url.encode()).hexdigest()[:16]
    if not (repo / "HEAD").is_file():
        repo.parent.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(["git", "clone", "--bare", "--quiet", url, str(repo)],
                              capture_output=True, check=False)
        if proc.returncode != 0:
            raise SourceError(f"git clone {redact(url)} failed: {redact(proc.stderr.decode(errors='replace').strip())}")
        # Later fetches name the URL each time; do not keep credentials from it in the cache's config.
        _git(repo, "remote", "remove", "origin")
    else:
        _git(repo, "fetch", "--quiet", "--prune", url, "+refs/heads/*:refs/heads/*")
    _ensure_head(repo, url)
    return repo


def _ensure_head(repo: Path, url: str) -> None:
    """Point a dangling ``HEAD`` of the bare cache at the source's only (or master/main) branch.

    A bundle made from one branch carries no ``HEAD``; ``git clone`` then points
    ``HEAD`` at the local ``init.defaultBranch``, which may not exist in it.
    Likewise an upstream that renamed its default branch leaves ``HEAD`` dangling
    after ``fetch --prune``.
    """
    ok = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "-q", "HEAD^{commit}"],
                        capture_output=True, check=False)
    if ok.returncode == 0:
        return
    branches = _git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/").split()
    if len(branches) != 1:
        branches = [b for b in ("refs/heads/master", "refs/heads/main") if b in branches][:1]
    if not branches:
        raise SourceError(f"{redact(url)}: no HEAD and no single default branch to read")
    _git(repo, "symbolic-ref", "HEAD", branches[0])


def read_git_tree(repo: Path, revision: str) -> list[tuple[str, bytes]]:
    """``(path, bytes)`` of every kep.yaml and PRR file at ``revision``.

    The problems met are dropped here: :func:`scan_git_tree` returns them too.
    """
    return scan_git_tree(repo, revision)[0]


def scan_git_tree(repo: Path, revision: str,
                  max_file_bytes: int = MAX_FILE_BYTES) -> tuple[list[tuple[str, bytes]], list[Problem]]:
    """``(files, problems)`` for ``keps/`` at ``revision``: metadata blobs read with one ``git cat-file --batch``.

    ``files`` is ``[(path, bytes)]`` sorted by path (paths decoded as UTF-8,
    U+FFFD for bad bytes, reported as :data:`NOT_UTF8`). Symbolic links (mode
    120000) and submodules under ``keps/`` and metadata blobs over
    ``max_file_bytes`` bytes are reported in ``problems`` and skipped.
    Raises :class:`SourceError` when git fails.
    """
    listing = _git_bytes(repo, "ls-tree", "-r", "-z", "-l", revision, "--", "keps")
    wanted: list[tuple[str, str]] = []
    problems: list[Problem] = []
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, raw_path = entry.split(b"\t", 1)
        mode, kind, sha, size = meta.decode("ascii", "replace").split()
        path, changed = decode_path(raw_path)
        if mode == "120000":
            problems.append(Problem(path, "", LINK))
        elif kind == "commit":
            problems.append(Problem(path, "", "submodule, not a file; skipped"))
        elif kind != "blob" or not (is_kep_file(path) or is_prr_file(path)):
            continue
        elif int(size) > max_file_bytes:
            problems.append(Problem(path, "", f"larger than {max_file_bytes} bytes; skipped"))
        else:
            wanted.append((path, sha))
            if changed:
                problems.append(Problem(path, "", NOT_UTF8))
    if not wanted:
        return [], problems
    proc = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch"], capture_output=True, check=False,
                          input="".join(f"{sha}\n" for _, sha in wanted).encode())
    if proc.returncode != 0:
        raise SourceError(f"git cat-file in {text_path(str(repo))} failed")
    out, pos, files = proc.stdout, 0, []
    for path, _ in wanted:
        header_end = out.index(b"\n", pos)
        size = int(out[pos:header_end].split()[2])
        files.append((path, out[header_end + 1: header_end + 1 + size]))
        pos = header_end + 1 + size + 1
    files.sort(key=lambda f: f[0])
    return files, problems


# -- GitHub tarball --------------------------------------------------------------------------

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


def probe_github_ref(client: httpx.Client, api_url: str, repo: str, ref: str, etag: str = "", *,
                     max_bytes: int = MAX_REF_BYTES, seconds: float = MAX_REF_SECONDS,
                     clock: Callable[[], float] = time.monotonic) -> Revision:
    """One ``GET /repos/{owner}/{repo}/commits/{ref}`` with ``Accept: application/vnd.github.sha``.

    GitHub REST returns the SHA as text; with ``etag`` the request is
    conditional (``If-None-Match``) and a ``304`` (which costs no rate limit)
    gives ``Revision("", etag, not_modified=True)``. The body is streamed and
    at most ``max_bytes`` bytes are read, within ``seconds`` overall (``clock``:
    monotonic seconds). Raises :class:`SourceError` (URL redacted) on a
    transport failure, a body over the cap, the deadline, or an answer that is
    not a SHA; :class:`UsageError` for an invalid ``repo`` or ``ref``.
    """
    url = github_url(api_url, repo, "commits", ref)
    what = f"GET {redact(url)}"
    deadline = Deadline(seconds, what, clock)
    headers = {"Accept": "application/vnd.github.sha"}
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
    if response.status_code != 200 or not re.fullmatch(r"[0-9a-f]{40}", sha):
        raise SourceError(f"{what}: HTTP {response.status_code}, could not resolve {ref!r} to a commit")
    return Revision(sha, response.headers.get("etag", ""))


def _send_streamed(client: httpx.Client, url: str, what: str, **kwargs) -> httpx.Response:
    try:
        return send(client, "GET", url, stream=True, **kwargs)
    except httpx.HTTPError as exc:
        raise SourceError(f"{what}: {type(exc).__name__}: {redact(str(exc))}") from None


def read_tarball(client: httpx.Client, api_url: str, repo: str, sha: str, limit: int = MAX_TARBALL_BYTES, *,
                 max_unpacked: int = MAX_UNPACKED_BYTES, max_file_bytes: int = MAX_FILE_BYTES,
                 seconds: float = MAX_DOWNLOAD_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> tuple[list[tuple[str, bytes]], list[Problem]]:
    """Stream ``GET /repos/{repo}/tarball/{sha}`` and return its metadata files, in memory.

    Returns ``(files, problems)``. Links and device entries under ``keps/`` and
    metadata files over ``max_file_bytes`` are skipped and reported; member
    paths are valid text (:func:`~bot.sources.localfs.decode_path`). Raises
    :class:`SourceError` (URL redacted) for an absolute or ``..`` member path,
    a body over ``limit`` bytes, a stream over ``max_unpacked`` bytes once
    decompressed (gzip bomb), metadata files over ``limit`` bytes in total,
    a download not finished within ``seconds`` (``clock``: monotonic seconds),
    an HTTP error or a broken archive.
    """
    url = github_url(api_url, repo, "tarball", sha)
    what = f"GET {redact(url)}"
    deadline = Deadline(seconds, what, clock)
    response = _send_streamed(client, url, what)
    try:
        if response.status_code != 200:
            raise SourceError(f"{what}: HTTP {response.status_code}")
        deadline.check()
        body = LimitedReader(chunk_reader(response.iter_bytes()), limit, what, deadline=deadline)
        gz = gzip.GzipFile(fileobj=io.BufferedReader(body, 1 << 16), mode="rb")
        unpacked = LimitedReader(lambda: gz.read(1 << 16), max_unpacked, what, unit=" once decompressed")
        with tarfile.open(fileobj=io.BufferedReader(unpacked, 1 << 16), mode="r|") as tar:
            return _read_members(tar, what, limit, max_file_bytes)
    except httpx.HTTPError as exc:
        raise SourceError(f"{what}: {type(exc).__name__} while reading the body: {redact(str(exc))}") from None
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise SourceError(f"{what}: not a readable tar.gz archive ({exc})") from None
    finally:
        response.close()


def _read_members(tar: tarfile.TarFile, what: str, limit: int,
                  max_file_bytes: int) -> tuple[list[tuple[str, bytes]], list[Problem]]:
    files: list[tuple[str, bytes]] = []
    problems: list[Problem] = []
    kept = 0
    while (member := tar.next()) is not None:
        tar.members.clear()  # stream mode: keep memory flat however many entries there are
        raw = _member_path(member.name, what)
        path, changed = decode_path(raw or "")
        if raw is None or not path.startswith("keps/") or member.isdir():
            continue
        if not member.isfile():
            problems.append(Problem(path, "", f"archive entry is a {_member_kind(member)}, not a file; skipped"))
            continue
        if not (is_kep_file(path) or is_prr_file(path)):
            continue
        if member.size > max_file_bytes:
            problems.append(Problem(path, "", f"larger than {max_file_bytes} bytes; skipped"))
            continue
        kept += member.size
        if kept > limit:
            raise SourceError(f"{what}: metadata files larger than {limit} bytes once unpacked, refused")
        fh = tar.extractfile(member)
        files.append((path, fh.read() if fh else b""))
        if changed:
            problems.append(Problem(path, "", NOT_UTF8))
    return files, problems


def _member_path(name: str, what: str) -> str | None:
    """Strip the ``owner-repo-sha/`` top folder; ``None`` for the folder itself."""
    posix = PurePosixPath(name)
    if posix.is_absolute() or ".." in posix.parts:
        raise SourceError(f"{what}: archive member {name!r} escapes the archive, refused")
    parts = posix.parts[1:]
    return "/".join(parts) if parts else None


def _member_kind(member: tarfile.TarInfo) -> str:
    if member.issym():
        return "symbolic link"
    if member.islnk():
        return "hard link"
    if member.isdir():
        return "directory"
    return "device or special file"


# -- cheap revision probe (kep-sync serve) ---------------------------------------------------

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


def current_revision(value: str, client: httpx.Client, *, api_url: str = DEFAULT_API_URL,
                     etag: str = "") -> Revision:
    """The revision ``value`` (an ``--enhancements`` string) points at now, with ONE request.

    - ``github:OWNER/REPO@REF``: ``GET /repos/{owner}/{repo}/commits/{ref}`` with
      ``Accept: application/vnd.github.sha`` and ``If-None-Match: etag`` (GitHub REST
      docs: a ``304`` answer does not count against the rate limit);
    - a git repository, URL or bundle: ``git ls-remote`` (``HEAD``, else the only
      branch, else ``master``/``main``, as the clone in :func:`sync_git_cache` picks);
    - a directory: its git ``HEAD`` (``""`` when it is not a checkout).

    Raises :class:`UsageError` for an unknown form, :class:`SourceError` when the source cannot be read.
    """
    source = parse_source(value)
    if source.kind == "dir":
        return Revision(_git_head(Path(source.location)))
    if source.kind == "git":
        return Revision(_ls_remote_head(source.location))
    return probe_github_ref(client, api_url, source.location, source.ref, etag)


def _ls_remote_head(location: str) -> str:
    proc = subprocess.run(["git", "ls-remote", location], capture_output=True, check=False,
                          env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
    if proc.returncode != 0:
        raise SourceError(f"git ls-remote {redact(location)} failed: "
                          f"{redact(proc.stderr.decode(errors='replace').strip())}")
    refs = dict(reversed(line.split("\t", 1)) for line in proc.stdout.decode(errors="replace").splitlines()
                if "\t" in line)
    branches = [r for r in refs if r.startswith("refs/heads/")]
    for ref in ("HEAD", *(branches if len(branches) == 1 else ()), "refs/heads/master", "refs/heads/main"):
        if ref in refs:
            return refs[ref]
    raise SourceError(f"{redact(location)}: no HEAD and no single default branch to read")
