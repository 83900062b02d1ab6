"""Fetch the kubernetes/enhancements metadata files and build a :class:`~bot.snapshot.Snapshot`.

``--enhancements SRC`` forms (see :func:`parse_source`):

1. a directory that contains ``keps/`` (revision: its git HEAD, if it is a checkout);
2. a git repository: a local path, ``file://`` or ``https://`` URL, or a bundle
   file; cloned once (bare) into the cache directory and fetched on later runs;
3. ``github:OWNER/REPO@REF``: REF resolved to a commit SHA with one API call,
   that commit's tarball streamed with httpx (size-capped) and read in memory.

Only ``keps/**/kep.yaml`` and ``keps/prod-readiness/**.yaml`` are read.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import NamedTuple

import httpx

from bot.errors import SourceError, UsageError
from bot.http import make_client, redact, send
from bot.kep import Problem
from bot.sources import parse_github_spec
from bot.snapshot import Snapshot, build_snapshot, is_kep_file, is_prr_file

#: Largest tarball accepted, bytes (the full enhancements tarball is ~40 MB).
MAX_TARBALL_BYTES = 256 * 1024 * 1024
DEFAULT_API_URL = "https://api.github.com"


class Source(NamedTuple):
    """A parsed ``--enhancements`` value: ``kind`` is ``dir``, ``git`` or ``github``.

    ``location`` is the path, URL or ``OWNER/REPO``; ``ref`` the GitHub ref (``github`` only).
    """

    kind: str
    location: str
    ref: str = ""


def parse_source(value: str) -> Source:
    """Classify an ``--enhancements`` value. Raises :class:`UsageError` for anything else."""
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
        return build_snapshot(read_directory(root), str(root), _git_head(root))
    if source.kind == "git":
        repo = sync_git_cache(source.location, cache_dir)
        revision = _git(repo, "rev-parse", "HEAD").strip()
        return build_snapshot(read_git_tree(repo, revision), redact(source.location), revision)
    own = client is None
    client = client or make_client(token)
    try:
        revision = resolve_github_ref(client, api_url, source.location, source.ref)
        files, problems = read_tarball(client, api_url, source.location, revision)
    finally:
        if own:
            client.close()
    snap = build_snapshot(files, f"github:{source.location}@{source.ref}", revision)
    return snap._replace(problems=tuple(sorted(snap.problems + tuple(problems))))


# -- directory -----------------------------------------------------------------------------

def read_directory(root: Path) -> Iterator[tuple[str, bytes]]:
    """Yield ``(relative path, bytes)`` for every kep.yaml and PRR file under ``root/keps``."""
    keps = root / "keps"
    for dirpath, dirnames, filenames in os.walk(keps):
        dirnames.sort()
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        for name in sorted(filenames):
            if not name.endswith(".yaml"):
                continue
            rel = f"{rel_dir}/{name}"
            if is_kep_file(rel) or is_prr_file(rel):
                yield rel, Path(dirpath, name).read_bytes()


def _git_head(root: Path) -> str:
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "-q", "HEAD"],
                             capture_output=True, text=True, check=False)
    except FileNotFoundError:
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


# -- git -------------------------------------------------------------------------------------

def _git(repo: Path, *args: str, input: bytes | None = None) -> str:
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, input=input, check=False)
    if proc.returncode != 0:
        raise SourceError(f"git {args[0]} in {repo} failed: {redact(proc.stderr.decode(errors='replace').strip())}")
    return proc.stdout.decode()


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
    """``(path, bytes)`` of every kep.yaml and PRR file at ``revision``, via one ``git cat-file --batch``."""
    listing = _git(repo, "ls-tree", "-r", "-z", revision, "--", "keps")
    wanted: list[tuple[str, str]] = []
    for entry in listing.split("\0"):
        if not entry:
            continue
        meta, path = entry.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind == "blob" and mode in ("100644", "100755") and (is_kep_file(path) or is_prr_file(path)):
            wanted.append((path, sha))
    if not wanted:
        return []
    proc = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch"], capture_output=True, check=False,
                          input="".join(f"{sha}\n" for _, sha in wanted).encode())
    if proc.returncode != 0:
        raise SourceError(f"git cat-file in {repo} failed")
    out, pos, files = proc.stdout, 0, []
    for path, _ in wanted:
        header_end = out.index(b"\n", pos)
        size = int(out[pos:header_end].split()[2])
        files.append((path, out[header_end + 1: header_end + 1 + size]))
        pos = header_end + 1 + size + 1
    return files


# -- GitHub tarball --------------------------------------------------------------------------

def resolve_github_ref(client: httpx.Client, api_url: str, repo: str, ref: str) -> str:
    """Resolve ``ref`` of ``OWNER/REPO`` to a commit SHA with one API call (see :func:`probe_github_ref`)."""
    return probe_github_ref(client, api_url, repo, ref).revision


def probe_github_ref(client: httpx.Client, api_url: str, repo: str, ref: str, etag: str = "") -> Revision:
    """One ``GET /repos/{owner}/{repo}/commits/{ref}`` with ``Accept: application/vnd.github.sha``.

    GitHub REST returns the SHA as text; with ``etag`` the request is
    conditional (``If-None-Match``) and a ``304`` (which costs no rate limit)
    gives ``Revision("", etag, not_modified=True)``. Raises :class:`SourceError`
    (URL redacted) on a transport failure or an answer that is not a SHA.
    """
    url = f"{api_url.rstrip('/')}/repos/{repo}/commits/{ref}"
    headers = {"Accept": "application/vnd.github.sha"}
    if etag:
        headers["If-None-Match"] = etag
    try:
        response = send(client, "GET", url, headers=headers)
    except httpx.HTTPError as exc:
        raise SourceError(f"GET {redact(url)}: {type(exc).__name__}: {redact(str(exc))}") from None
    if response.status_code == 304 and etag:
        return Revision("", etag, not_modified=True)
    sha = response.text.strip()
    if response.status_code != 200 or not re.fullmatch(r"[0-9a-f]{40}", sha):
        raise SourceError(f"GET {redact(url)}: HTTP {response.status_code}, could not resolve {ref!r} to a commit")
    return Revision(sha, response.headers.get("etag", ""))


class _CappedStream(io.RawIOBase):
    """A read-only file over an iterator of byte chunks that fails past ``limit`` bytes."""

    def __init__(self, chunks: Iterator[bytes], limit: int, what: str):
        self._chunks, self._buf, self._limit, self._seen, self._what = chunks, b"", limit, 0, what

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        while not self._buf:
            chunk = next(self._chunks, None)
            if chunk is None:
                return 0
            self._seen += len(chunk)
            if self._seen > self._limit:
                raise SourceError(f"{self._what}: larger than {self._limit} bytes, refused")
            self._buf = chunk
        n = min(len(b), len(self._buf))
        b[:n], self._buf = self._buf[:n], self._buf[n:]
        return n


def read_tarball(client: httpx.Client, api_url: str, repo: str, sha: str,
                 limit: int = MAX_TARBALL_BYTES) -> tuple[list[tuple[str, bytes]], list[Problem]]:
    """Stream ``GET /repos/{repo}/tarball/{sha}`` and return its metadata files, in memory.

    Returns ``(files, problems)``. Links and device entries under ``keps/``
    are skipped and reported; an absolute or ``..`` member path refuses the
    whole archive (:class:`SourceError`), as does a body over ``limit`` bytes
    or metadata files over ``limit`` bytes once unpacked.
    """
    url = f"{api_url.rstrip('/')}/repos/{repo}/tarball/{sha}"
    what = f"GET {redact(url)}"
    try:
        response = send(client, "GET", url, stream=True)
    except httpx.HTTPError as exc:
        raise SourceError(f"{what}: {type(exc).__name__}: {redact(str(exc))}") from None
    files: list[tuple[str, bytes]] = []
    problems: list[Problem] = []
    try:
        if response.status_code != 200:
            raise SourceError(f"{what}: HTTP {response.status_code}")
        stream = io.BufferedReader(_CappedStream(response.iter_bytes(), limit, what), 1 << 16)
        kept = 0
        with tarfile.open(fileobj=stream, mode="r|gz") as tar:
            for member in tar:
                path = _member_path(member.name, what)
                if path is None or not path.startswith("keps/") or member.isdir():
                    continue
                if not member.isfile():
                    problems.append(Problem(path, "", f"archive entry is a {_member_kind(member)}, not a file; skipped"))
                    continue
                if not (is_kep_file(path) or is_prr_file(path)):
                    continue
                kept += member.size
                if kept > limit:  # a small gzip body can still expand to a huge member
                    raise SourceError(f"{what}: metadata files larger than {limit} bytes once unpacked, refused")
                fh = tar.extractfile(member)
                files.append((path, fh.read() if fh else b""))
    except httpx.HTTPError as exc:
        raise SourceError(f"{what}: {type(exc).__name__} while reading the body: {redact(str(exc))}") from None
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise SourceError(f"{what}: not a readable tar.gz archive ({exc})") from None
    finally:
        response.close()
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
    refs = dict(reversed(line.split("\t", 1)) for line in proc.stdout.decode().splitlines() if "\t" in line)
    branches = [r for r in refs if r.startswith("refs/heads/")]
    for ref in ("HEAD", *(branches if len(branches) == 1 else ()), "refs/heads/master", "refs/heads/main"):
        if ref in refs:
            return refs[ref]
    raise SourceError(f"{redact(location)}: no HEAD and no single default branch to read")
