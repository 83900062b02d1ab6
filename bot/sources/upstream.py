"""A ``github:OWNER/REPO@REF`` enhancements source read incrementally across runs (cache: :mod:`upstream_cache`).

One :class:`GitHubUpstream` per process and source; it asks GitHub only what its cache in ``cache_dir`` cannot
answer, and keeps what it read for every later call of the same process (many wiki targets, a replan):

1. the ref: ``GET /repos/{o}/{r}/commits/{ref}`` (``Accept: application/vnd.github.sha``), conditional with
   the stored ETag; a ``304`` (no rate limit cost) means the stored revision;
2. the files: the revision's cached entry; else, from the newest cached revision ``BASE``, one
   ``GET /repos/{o}/{r}/compare/{BASE}...{HEAD}?per_page=1`` (its ``files`` list: every changed path with its
   blob id) and one ``GET /repos/{o}/{r}/git/blobs/{id}`` (``Accept: application/vnd.github.raw``, checked
   against the id) per changed kep.yaml; else (no cache, ``HEAD`` not ahead of ``BASE``, more than
   :data:`MAX_COMPARE_FILES` changed files or :data:`MAX_CHANGED_KEPS` changed kep.yaml files, any answer
   that cannot be used) the whole tarball, as :func:`bot.sources.github_tarball.read_tarball` reads it;
3. the provenance answers (:meth:`GitHubUpstream.last_commits`): cached by revision; after an incremental
   read the answers of the kep.yaml files the compare did not list are carried over, so only changed files
   cost a request. A file touched and changed back within the range keeps its older answer.

The compare API was chosen over a blobless partial clone: it needs no git protocol or clone on disk, its
answers come through the same client, caps and token as the tarball, and a one-file change costs about
three small requests (``scripts/bench/bench_upstream.py`` prints the figures). The compare API cannot tell a file
that became a symbolic link; its blob is read as the file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from bot.model.kep import Problem
from bot.model.snapshot import Snapshot, build_snapshot, is_kep_file, is_prr_file
from bot.sources.github_tarball import Revision, github_url, probe_github_ref, read_tarball
from bot.sources.localfs import MAX_FILE_BYTES
from bot.sources.upstream_cache import Files, UpstreamCache, blob_id, files_of

if TYPE_CHECKING:
    import httpx

    from bot.http import RequestCounter
    from bot.model.history.log import Commit

#: A compare listing this many files may be cut short by GitHub (its documented limit): read the tarball.
MAX_COMPARE_FILES = 300
#: More changed kep.yaml files than this are read from the tarball (one request) instead of blob by blob.
MAX_CHANGED_KEPS = 40


class GitHubUpstream:
    """The source ``github:{repo}@{ref}`` with its cache in ``cache_dir``; ``api_url``, ``token`` and ``counter``
    make each request's client (:func:`bot.http.make_client`; ``transport`` for tests).

    ``problems``: what the cache could not use or write (merged into the snapshot's problems);
    ``read``: how the files were read this process (``""`` not yet, ``cache``, ``compare``, ``tarball``);
    ``fetched``: the kep.yaml blobs fetched one by one.
    """

    def __init__(
        self,
        repo: str,
        ref: str,
        cache_dir: Path,
        *,
        api_url: str,
        token: str | None = None,
        counter: RequestCounter | None = None,
        transport: httpx.BaseTransport | None = None,
    ):
        self.repo, self.ref, self.api_url = repo, ref, api_url
        self.token, self.counter, self.transport = token, counter, transport
        self.problems: list[Problem] = []
        self.cache = UpstreamCache(cache_dir, f"{api_url.rstrip('/')} {repo}", self.problems)
        self.read, self.fetched = "", 0
        self._revision: Revision | None = None
        self._snapshot: Snapshot | None = None
        self._carried: tuple[str, frozenset[str]] | None = None  # (base revision, paths the compare listed)

    def client(self) -> httpx.Client:
        from bot.http import make_client

        return make_client(self.token, counter=self.counter, transport=self.transport)

    def probe(self) -> Revision:
        """The ref's revision now (one conditional request, the first call only); ``not_modified`` when GitHub
        answered ``304`` to the stored ETag. Raises :class:`~bot.errors.SourceError` as
        :func:`~bot.sources.github_tarball.probe_github_ref` does."""
        if self._revision is None:
            etag, known = self.cache.ref(self.ref)
            with self.client() as client:
                got = probe_github_ref(client, self.api_url, self.repo, self.ref, etag if known else "")
            if got.not_modified:
                got = got._replace(revision=known)
            else:
                self.cache.put_ref(self.ref, got.etag, got.revision)
            self._revision = got
        return self._revision

    def snapshot(self) -> Snapshot:
        """The :class:`Snapshot` at the ref's revision (read once per process). Raises
        :class:`~bot.errors.SourceError` when upstream cannot be read (with
        :data:`~bot.sources.enhancements.OFFLINE_HINT` when the network could not answer)."""
        from bot.errors import SourceError
        from bot.sources.enhancements import OFFLINE_HINT, unreachable

        try:
            return self._read_snapshot()
        except SourceError as exc:
            if not unreachable(exc):
                raise
            raise SourceError(f"{exc}\n{OFFLINE_HINT}") from None

    def _read_snapshot(self) -> Snapshot:
        if self._snapshot is None:
            head = self.probe().revision
            files = self.cache.files(head)
            self.read = "cache"
            if files is None:
                files = self._changed(head) or self._tarball(head)
                self.cache.put_files(files)
                self._carry(head)
            snap = build_snapshot(files.pairs(), f"github:{self.repo}@{self.ref}", head)
            self._snapshot = snap._replace(
                problems=tuple(sorted(snap.problems + files.problems + tuple(self.problems)))
            )
        return self._snapshot

    def last_commits(self, paths: Iterable[str], max_requests: int) -> tuple[dict[str, Commit], int]:
        """``({path: newest commit touching it}, requests sent)`` at the snapshot's revision: cached answers,
        one ``commits?path=`` request per other path (at most ``max_requests``;
        :func:`bot.sources.history.github_last_commits`)."""
        from bot.sources.history import github_last_commits

        revision = self.snapshot().revision
        wanted = sorted(set(paths))
        known = self.cache.commits(revision)
        missing = [p for p in wanted if p not in known]
        sent = 0
        if missing and max_requests > 0:
            with self.client() as client:
                found, sent = github_last_commits(client, self.api_url, self.repo, revision, missing, max_requests)
            if found:
                known.update(found)
                self.cache.put_commits(revision, known)
        return {p: known[p] for p in wanted if p in known}, sent

    # ------------------------------------------------------------------ reads
    def _tarball(self, head: str) -> Files:
        with self.client() as client:
            pairs, problems = read_tarball(client, self.api_url, self.repo, head)
        self.read, self._carried = "tarball", None
        return files_of(head, pairs, problems)

    def _changed(self, head: str) -> Files | None:
        """The files at ``head`` from the newest cached revision plus the compare's changes; ``None`` when that
        cannot be done (see the module docstring)."""
        base = self.cache.latest(but=head)
        if base is None:
            return None
        with self.client() as client:
            listed = self._compare(client, base.revision, head)
            if listed is None:
                return None
            files, problems = dict(base.files), [p for p in base.problems if p.path not in listed.touched]
            for path in listed.removed:
                files.pop(path, None)
            files.update({path: (blob, b"") for path, blob in listed.prr.items()})
            for path, blob in listed.keps.items():
                data = self._blob(client, blob)
                if data is None:
                    return None
                if len(data) > MAX_FILE_BYTES:
                    files.pop(path, None)
                    problems.append(Problem(path, "", f"larger than {MAX_FILE_BYTES} bytes; skipped"))
                else:
                    files[path] = (blob, data)
        self.read, self.fetched, self._carried = "compare", len(listed.keps), (base.revision, listed.touched)
        return Files(head, files, tuple(sorted(problems)))

    def _compare(self, client: httpx.Client, base: str, head: str) -> Listed | None:
        import httpx

        from bot.http import send

        url = f"{self.api_url.rstrip('/')}/repos/{self.repo}/compare/{base}...{head}"  # SHAs: nothing to quote
        try:
            response = send(
                client, "GET", url, params={"per_page": "1"}, headers={"Accept": "application/vnd.github+json"}
            )
            data = response.json() if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError):  # a transport error or a body that is not JSON: read the tarball
            return None
        if not isinstance(data, dict) or data.get("status") not in ("ahead", "identical"):
            return None
        return listed_changes(data.get("files"))

    def _blob(self, client: httpx.Client, blob: str) -> bytes | None:
        import httpx

        from bot.http import send

        url = github_url(self.api_url, self.repo, "git/blobs", blob)
        try:
            response = send(client, "GET", url, headers={"Accept": "application/vnd.github.raw"})
        except httpx.HTTPError:  # a transport error: read the tarball instead
            return None
        data = response.content if response.status_code == 200 else None
        return data if data is not None and blob_id(data) == blob else None

    def _carry(self, head: str) -> None:
        """Copy the base revision's provenance answers of the kep.yaml files the compare did not list to ``head``."""
        if self._carried is None:
            return
        base, touched = self._carried
        kept = {p: c for p, c in self.cache.commits(base).items() if p not in touched}
        if kept:
            self.cache.put_commits(head, kept)


class Listed(NamedTuple):
    """The metadata changes of a compare ``files`` list: ``removed`` paths, ``prr`` and ``keps``
    ``{path: blob id}`` added or changed, and every path it ``touched`` (renames' old names included)."""

    removed: frozenset[str]
    prr: dict[str, str]
    keps: dict[str, str]
    touched: frozenset[str]


def listed_changes(entries: object) -> Listed | None:
    """:class:`Listed` of a compare answer's ``files``; ``None`` when it is not a list of entries with
    ``filename``, ``status`` and a blob ``sha``, or has :data:`MAX_COMPARE_FILES` entries or more (GitHub
    cuts the list there), or more than :data:`MAX_CHANGED_KEPS` changed kep.yaml files."""
    from bot.sources.tarball import SHA_RE

    if not isinstance(entries, list) or len(entries) >= MAX_COMPARE_FILES:
        return None
    removed: set[str] = set()
    touched: set[str] = set()
    prr: dict[str, str] = {}
    keps: dict[str, str] = {}
    for entry in entries:
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("filename"), str)
            or not isinstance(entry.get("status"), str)
        ):
            return None
        path, previous = entry["filename"], entry.get("previous_filename")
        if isinstance(previous, str):
            removed.add(previous)
            touched.add(previous)
        touched.add(path)
        wanted = is_kep_file(path) or is_prr_file(path)
        if entry["status"] == "removed":
            removed.add(path)
        elif wanted and not (isinstance(sha := entry.get("sha"), str) and SHA_RE.fullmatch(sha)):
            return None
        elif wanted:
            removed.discard(path)
            (keps if is_kep_file(path) else prr)[path] = entry["sha"]
    if len(keps) > MAX_CHANGED_KEPS:
        return None
    return Listed(frozenset(removed), prr, keps, frozenset(touched))


def github_upstream(
    enhancements: str,
    cache_dir: Path,
    *,
    api_url: str,
    counter: RequestCounter | None = None,
    transport: httpx.BaseTransport | None = None,
) -> GitHubUpstream | None:
    """The :class:`GitHubUpstream` of an ``--enhancements`` value (token from ``GITHUB_TOKEN``), ``None`` when
    it is not a ``github:`` source. Raises :class:`~bot.errors.UsageError` for an invalid value."""
    from bot.sources.enhancements import parse_source

    source = parse_source(enhancements)
    if source.kind != "github":
        return None
    return GitHubUpstream(
        source.location,
        source.ref,
        cache_dir,
        api_url=api_url,
        token=os.environ.get("GITHUB_TOKEN") or None,
        counter=counter,
        transport=transport,
    )
