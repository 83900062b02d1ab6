"""A ``github:OWNER/REPO@REF`` enhancements source read incrementally across runs (cache: :mod:`upstream_cache`).

One :class:`GitHubUpstream` per process and source; it asks GitHub what its cache in ``cache_dir`` cannot
answer, checks every cache entry it uses against GitHub's answers of the same run, and keeps what it read for
every later call of the same process (many wiki targets, a replan):

1. the ref: ``GET /repos/{o}/{r}/commits/{ref}`` (``Accept: application/vnd.github.sha``), conditional only
   with an ETag and revision the caller's state keeps (``serve``: ``STATE_DIR``), never ``cache_dir``'s;
2. the commit's tree id: ``GET /repos/{o}/{r}/git/commits/{HEAD}`` (``tree.sha``);
3. the files: the revision's cached entry when :meth:`~bot.sources.upstream_cache.Files.check` holds against
   that tree id (and each kep.yaml it says is over the size cap still is); else, from the newest cached
   revision ``BASE``, one ``GET /repos/{o}/{r}/compare/{BASE}...{HEAD}?per_page=1`` read by
   :func:`bot.sources.compare.listed_changes`, the root tree ``GET /repos/{o}/{r}/git/trees/{TREE}``, and one
   ``GET /repos/{o}/{r}/git/blobs/{id}`` (checked against the id) per kep.yaml whose blob no cached text has;
   the listing so changed must hash to the root tree's ``keps`` entry; else (no cache, ``HEAD`` not ahead of
   ``BASE``, an answer :func:`~bot.sources.compare.listed_changes` does not rely on, more than
   :data:`MAX_CHANGED_KEPS` blobs to fetch, a listing that does not hash to the tree, any request that fails)
   the whole tarball, as :func:`bot.sources.github_tarball.read_tarball` reads it, then the tree of ``keps/``
   (``GET .../git/trees/{KEPS}?recursive=1``) to store it with, when both agree;
4. the provenance answers (:meth:`GitHubUpstream.last_commits`): cached by revision; after an incremental
   read the answers of the kep.yaml files the compare did not touch are carried over, so only changed files
   cost a request. A file touched and changed back within the range keeps its older answer.

An entry that does not hold is reported (``upstream cache entry ignored: ...``), deleted and read again. The
compare API was chosen over a blobless partial clone: it needs no git protocol or clone on disk, its answers
come through the same client, caps and token as the tarball, and a one-file change costs a few small requests
(``scripts/bench/bench_upstream.py`` prints the figures).
The compare API cannot tell a file that became a symbolic link; its blob is read as the file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from bot.model.kep import Problem
from bot.model.snapshot import Snapshot, build_snapshot, is_kep_file, is_prr_file
from bot.redact import without_userinfo
from bot.sources.compare import listed_changes
from bot.sources.git_tree import TREE_MODE, blob_id, listing_id, subtree_id, top_entries
from bot.sources.github_git import Unavailable, blob, commit_tree, compare, tree_entries
from bot.sources.github_tarball import Revision, probe_github_ref, read_tarball
from bot.sources.localfs import MAX_FILE_BYTES
from bot.sources.tarball import SHA_RE, ArchiveListing
from bot.sources.upstream_cache import LARGE, Files, UpstreamCache

if TYPE_CHECKING:
    import httpx

    from bot.http import RequestCounter
    from bot.model.history.log import Commit

#: More kep.yaml blobs to fetch than this are read from the tarball (one request) instead of blob by blob.
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
        self.cache = UpstreamCache(cache_dir, f"{without_userinfo(api_url).rstrip('/')} {repo}", self.problems)
        self.cache.clean()
        self.read, self.fetched = "", 0
        self._revision: Revision | None = None
        self._snapshot: Snapshot | None = None
        self._carried: tuple[str, frozenset[str]] | None = None  # (base revision, paths the compare touched)

    def client(self) -> httpx.Client:
        from bot.http import make_client

        return make_client(self.token, counter=self.counter, transport=self.transport)

    def probe(self, known: tuple[str, str] | None = None) -> Revision:
        """The ref's revision now (one request, the first call only). ``known``: ``(ETag, revision)`` of the last
        good run as the caller's state keeps it; the request is then conditional and a ``304`` (no rate limit
        cost) means that revision, with ``not_modified`` set. Raises :class:`~bot.errors.SourceError` as
        :func:`~bot.sources.github_tarball.probe_github_ref` does (with
        :data:`~bot.sources.enhancements.OFFLINE_HINT` when the network could not answer)."""
        if self._revision is None:
            etag, revision = known or ("", "")
            etag = etag if SHA_RE.fullmatch(revision) else ""
            from bot.sources.enhancements import offline_hint

            with self.client() as client, offline_hint():
                got = probe_github_ref(client, self.api_url, self.repo, self.ref, etag)
            self._revision = got._replace(revision=revision) if got.not_modified else got
        return self._revision

    def snapshot(self) -> Snapshot:
        """The :class:`Snapshot` at the ref's revision (read once per process). Raises
        :class:`~bot.errors.SourceError` when upstream cannot be read (with
        :data:`~bot.sources.enhancements.OFFLINE_HINT` when the network could not answer)."""
        from bot.sources.enhancements import offline_hint

        with offline_hint():
            return self._read_snapshot()

    def _read_snapshot(self) -> Snapshot:
        if self._snapshot is None:
            head = self.probe().revision
            with self.client() as client:
                pairs, problems = self._files(client, head)
            snap = build_snapshot(pairs, f"github:{self.repo}@{self.ref}", head)
            self._snapshot = snap._replace(
                problems=tuple(sorted(snap.problems + tuple(problems) + tuple(self.problems)))
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
    def _files(self, client: httpx.Client, head: str) -> tuple[list[tuple[str, bytes]], list[Problem]]:
        """``(pairs, file problems)`` at ``head``: a checked cache entry, an incremental read, else the tarball."""
        try:
            tree = commit_tree(client, self.api_url, self.repo, head)
        except Unavailable as exc:
            tree, why = "", str(exc)
        if tree:
            files = self._cached(client, head, tree) or self._changed(client, head, tree)
            if files is not None:
                return files.pairs(), files.problems()
        listing = ArchiveListing()
        pairs, problems = read_tarball(client, self.api_url, self.repo, head, listing=listing)
        self.read, self._carried = "tarball", None
        if tree:
            self._store(client, Files(head, tree, {}, {}, {}, frozenset()), pairs, problems, listing)
        else:
            self._not_cached(f"the tree of commit {head} cannot be read ({why})")
        return pairs, problems

    def _cached(self, client: httpx.Client, head: str, tree: str) -> Files | None:
        """The cache entry of ``head`` when it holds against ``tree`` (else reported, deleted and ``None``)."""
        files = self.cache.files(head)
        if files is None:
            return None
        why = files.check(tree) or self._still_large(client, files)
        if why:
            self.cache.ignored(self.cache.entry_path(head), why)
            self.cache.drop(head)
            return None
        self.read = "cache"
        return files

    def _still_large(self, client: httpx.Client, files: Files) -> str:
        """Why a kep.yaml the entry says is over the cap is not (read again, at most the cap + 1 byte), or ``""``."""
        wanted = files.wanted()
        for path in sorted(files.large):
            try:
                if blob(client, self.api_url, self.repo, wanted[path], MAX_FILE_BYTES) is not None:
                    return f"{path}: not larger than {MAX_FILE_BYTES} bytes"
            except Unavailable as exc:
                return f"{path}: cannot be checked ({exc})"
        return ""

    def _changed(self, client: httpx.Client, head: str, tree: str) -> Files | None:
        """The files at ``head`` from the newest cached revision plus the compare's changes, checked against
        ``tree``; ``None`` when that cannot be done (see the module docstring)."""
        base = self.cache.latest(but=head)
        if base is None:
            return None
        try:
            answer = compare(client, self.api_url, self.repo, base.revision, head)
            if answer.get("status") not in ("ahead", "identical"):
                return None  # behind or diverged: a force-push; the base is no ancestor
            base_tree = _tree_of(answer.get("base_commit"))
            why = base.check(base_tree) if base_tree else ""
            if why:
                self.cache.ignored(self.cache.entry_path(base.revision), why)
                self.cache.drop(base.revision)
                return None
            listed = listed_changes(answer.get("files"))
            if listed is None:
                return None
            top, keps_tree = self._root(client, tree)
            keps = listed.apply(base.keps)
            if subtree_id(keps, "keps") != keps_tree:
                return None  # the answer did not tell every change (or a mode): read the tarball
            files = Files(head, tree, top, keps, {}, frozenset())
            known = {blob_id(text): text for text in base.texts.values()}
            wanted = files.wanted()
            fetch = {p: sha for p, sha in wanted.items() if sha not in known}
            if len(fetch) > MAX_CHANGED_KEPS:
                return None
            texts = {p: known[sha] for p, sha in wanted.items() if sha in known}
            large = set()
            for path, sha in sorted(fetch.items()):
                data = blob(client, self.api_url, self.repo, sha, MAX_FILE_BYTES)
                if data is None:
                    large.add(path)
                else:
                    texts[path] = data
        except (Unavailable, ValueError):
            return None
        files = files._replace(texts=texts, large=frozenset(large))
        if files.check(tree):
            return None
        self.read, self.fetched, self._carried = "compare", len(fetch), (base.revision, listed.touched)
        self.cache.put_files(files)
        self._carry(head)
        return files

    def _root(self, client: httpx.Client, tree: str) -> tuple[dict[str, tuple[str, str]], str | None]:
        """``(entries of the root tree but keps, the tree id of keps/ or None)``; raises :class:`Unavailable`."""
        top = tree_entries(client, self.api_url, self.repo, tree)
        mode, keps = top.get("keps", ("", ""))
        if mode.lstrip("0") != TREE_MODE:
            return top, None
        del top["keps"]
        return top, keps

    def _store(
        self,
        client: httpx.Client,
        files: Files,
        pairs: list[tuple[str, bytes]],
        problems: list[Problem],
        listing: ArchiveListing,
    ) -> None:
        """Cache a full read (``pairs``, ``problems``) with the tree listing of ``files.tree``, when the two agree:
        the ``listing`` of the tarball when it hashes to that tree, else GitHub's (the root tree and ``keps/``)."""
        try:
            top, keps = self._listing(client, files.tree, listing)
        except Unavailable as exc:
            self._not_cached(f"the tree of commit {files.revision} cannot be read ({exc})")
            return
        files = files._replace(
            top=top,
            keps=keps,
            texts={p: d for p, d in pairs if is_kep_file(p)},
            large=frozenset(p.path for p in problems if p.message == LARGE and is_kep_file(p.path)),
        )
        read = sorted((p, b"" if is_prr_file(p) else d) for p, d in pairs)
        why = files.check(files.tree) or (
            "the tarball and the tree listing differ"
            if (files.pairs(), files.problems()) != (read, sorted(problems))
            else ""
        )
        if why:
            self._not_cached(why)
        else:
            self.cache.put_files(files)

    def _listing(
        self, client: httpx.Client, tree: str, listing: ArchiveListing
    ) -> tuple[dict[str, tuple[str, str]], dict[str, tuple[str, str]]]:
        """``(top, keps)`` of ``tree`` from the tarball's ``listing`` when it hashes to ``tree`` (a tarball keeps
        out what ``.gitattributes`` says ``export-ignore``, and a submodule as an empty folder), else from GitHub's
        trees API. Raises :class:`Unavailable`."""
        keps = {p: v for p, v in listing.entries.items() if p.startswith("keps/")}
        try:
            if listing.usable and listing_id(listing.entries) == tree:
                return {n: v for n, v in top_entries(listing.entries).items() if n != "keps"}, keps
        except ValueError:
            pass
        top, keps_tree = self._root(client, tree)
        below = tree_entries(client, self.api_url, self.repo, keps_tree, recursive=True) if keps_tree else {}
        return top, {f"keps/{p}": v for p, v in below.items()}

    def _not_cached(self, why: str) -> None:
        self.problems.append(
            Problem(
                str(self.cache.root), "", f"upstream cache not written: {why}; the next run reads the tarball again"
            )
        )

    def _carry(self, head: str) -> None:
        """Copy the base revision's provenance answers of the kep.yaml files the compare did not touch to ``head``."""
        if self._carried is None:
            return
        base, touched = self._carried
        kept = {p: c for p, c in self.cache.commits(base).items() if p not in touched}
        if kept:
            self.cache.put_commits(head, kept)


def _tree_of(commit: object) -> str:
    """``commit.tree.sha`` of a commit object of a compare answer (``base_commit``), ``""`` when it has none."""
    inner = commit.get("commit") if isinstance(commit, dict) else None
    tree = inner.get("tree") if isinstance(inner, dict) else None
    sha = tree.get("sha") if isinstance(tree, dict) else None
    return sha if isinstance(sha, str) and SHA_RE.fullmatch(sha) else ""


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
