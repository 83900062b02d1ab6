"""History sources: the first-parent log of the kep.yaml files and the fields of old versions.

Git sources (a directory that is a git checkout, a git URL, a bundle) are read
locally with the git CLI, incrementally across runs: the parsed log is cached
per repository and extended from the cached head, and the tracked fields of
each blob are cached by blob id under ``cache_dir/history/``, so a second run
reads only what is new. ``github:`` sources use the REST commits API, one
request per kep.yaml (see :func:`github_last_commits`). A plain directory has
no history.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Collection, Iterable, Mapping
from datetime import UTC
from pathlib import Path

from bot import progress
from bot.errors import UsageError
from bot.fileread import CACHE_ENTRY_BYTES, read_regular
from bot.model.history.fields import blob_fields
from bot.model.history.log import (
    LOG_FORMAT,
    NO_BLOB,
    SHALLOW,
    Commit,
    FileChange,
    Version,
    message_subject,
    parse_log,
    versions,
)
from bot.sources.git import cat_file_batch, git_cache_path, run_git, sync_git_cache, try_git, worktree_head

#: Bumped when the cache layout, the tracked fields or what a commit holds change; older caches are ignored.
CACHE_VERSION = 2
#: ``keps`` rather than a ``**/kep.yaml`` glob: git matches a plain prefix ~2x faster; parse_log keeps kep.yaml only.
_PATHSPEC = "keps"


class GitHistory:
    """The history of one git repository (bare cache or checkout) up to ``head``.

    ``repo``: the repository path; ``head``: the commit whose first-parent line
    is read; ``cache``: the directory for this cache (``None``: no cache).
    ``shallow``: the boundary commits of a shallow clone (git's ``shallow`` file), sorted; empty for a
    full clone. Their log entries get ``parent`` :data:`~bot.model.history.log.SHALLOW`.
    Raises :class:`SourceError` when git fails.
    """

    def __init__(self, repo: Path, head: str, cache: Path | None = None):
        self.repo, self.head, self.cache = repo, head, cache
        self._log: list[Commit] | None = None
        self._fields: dict[str, dict | None] = {}
        self._dirty = False
        self.blobs_read = 0
        self.shallow = _shallow_commits(repo)
        if cache is not None:
            cached = _read_json(cache / "blobs.json", {})
            if cached.get("parser") == _parser_stamp():
                self._fields = _checked(cache / "blobs.json", _blobs_of, cached) or {}

    def log(self) -> list[Commit]:
        """Commits newest first (the kep.yaml changes of each against its first parent)."""
        if self._log is None:
            boundary = set(self.shallow)
            self._log = [c._replace(parent=SHALLOW) if c.sha in boundary else c for c in self._load_log()]
        return self._log

    def boundary(self) -> tuple[str, ...]:
        """The shallow boundary commits on the first-parent line (those the log marks
        :data:`~bot.model.history.log.SHALLOW`); ``()`` for a full clone. A merged branch's boundary is not listed."""
        return tuple(c.sha for c in self.log() if c.parent == SHALLOW) if self.shallow else ()

    def fields(self, blob: str) -> dict | None:
        """Tracked fields of one blob (:func:`bot.model.history.fields.blob_fields`), cached by blob id."""
        if blob not in self._fields:
            self.prefetch([blob])
        return self._fields.get(blob)

    def prefetch(self, blobs: Iterable[str], paths: dict[str, str] | None = None) -> None:
        """Read and parse every blob in ``blobs`` not yet cached, with one ``git cat-file --batch``.

        ``paths``: blob -> a path it had (parse_kep reads the KEP number from the path).
        """
        wanted = sorted({b for b in blobs if b != NO_BLOB and b not in self._fields})
        if not wanted:
            return
        paths = paths or {}
        for blob, data in zip(wanted, cat_file_batch(self.repo, wanted), strict=True):
            self._fields[blob] = None if data is None else blob_fields(paths.get(blob, "keps/x/0-x/kep.yaml"), data)
        self.blobs_read += len(wanted)
        self._dirty = True

    def timelines(self, paths: Iterable[str]) -> dict[str, list[tuple[Version, dict | None]]]:
        """``{path: [(version, tracked fields or None), ...]}`` oldest first, renames followed, for each kep.yaml
        path at ``head`` (:func:`bot.model.history.log.versions`); every blob read with one ``git cat-file``."""
        found = {p: versions(self.log(), p) for p in sorted(set(paths))}
        self._read(found, {p: len(vs) for p, vs in found.items()})
        return {p: [(v, self._fields.get(v.blob)) for v in vs] for p, vs in found.items()}

    def recent(self, wanted: Mapping[str, Collection[str]]) -> dict[str, list[tuple[Version, dict | None]]]:
        """Like :meth:`timelines`, but only the newest versions of each path that provenance needs.

        ``wanted``: ``{kep.yaml path: tracked fields}``. Reads the newest 4
        versions of each path, then 4x more of a path while a wanted field still
        holds its current value at the oldest version read
        (:func:`bot.model.history.provenance.field_origin`), so the suffix returned
        always reaches the version before the change (or the file's first version).
        """
        from bot.model.history.provenance import field_origin

        found = {p: versions(self.log(), p) for p in sorted(wanted)}
        depth = {p: min(4, len(vs)) for p, vs in found.items()}
        pending = list(found)
        while pending:
            self._read(found, {p: depth[p] for p in pending})
            again = []
            for p in pending:
                suffix = [(v, self._fields.get(v.blob)) for v in found[p][-depth[p] :]]
                if depth[p] < len(found[p]) and any(field_origin(suffix, f) == suffix[0][0].commit for f in wanted[p]):
                    depth[p] = min(4 * depth[p], len(found[p]))
                    again.append(p)
            pending = again
        return {p: [(v, self._fields.get(v.blob)) for v in vs[-depth[p] :]] if vs else [] for p, vs in found.items()}

    def _read(self, found: Mapping[str, list[Version]], depth: Mapping[str, int]) -> None:
        """Parse the newest ``depth[path]`` versions of each path (one ``git cat-file``) and save the cache."""
        chosen = [v for p, n in depth.items() for v in found[p][len(found[p]) - n :]]
        self.prefetch([v.blob for v in chosen], {v.blob: v.path for v in chosen})
        self.save()

    def save(self) -> None:
        """Write the blob cache when new blobs were parsed (atomic replace; errors are ignored: a cache)."""
        if self.cache is None or not self._dirty:
            return
        _write_json(
            self.cache / "blobs.json", {"version": CACHE_VERSION, "parser": _parser_stamp(), "blobs": self._fields}
        )
        self._dirty = False

    def _load_log(self) -> list[Commit]:
        log_path = self.cache / "log.json" if self.cache is not None else None
        cached = _read_json(log_path, {}) if log_path is not None else {}
        old = (_checked(log_path, _commits_of, cached) or []) if cached and log_path is not None else []
        if cached.get("shallow", []) != list(self.shallow):
            old = []  # deepened or made shallow since: the boundary commit's "added everything" entry is stale
        if old and old[0].sha == self.head:
            return old
        commits: list[Commit] | None = None
        if old and _on_first_parent_line(self.repo, old[0].sha, self.head):
            commits = parse_log(_git_log(self.repo, f"{old[0].sha}..{self.head}")) + old
        if commits is None:
            with progress.step(
                "reading the kep.yaml history", "the first run reads every commit; later runs only new ones"
            ):
                commits = parse_log(_git_log(self.repo, self.head))
        if self.cache is not None:
            _write_json(
                self.cache / "log.json",
                {
                    "version": CACHE_VERSION,
                    "head": self.head,
                    "shallow": list(self.shallow),
                    "commits": [_plain(c) for c in commits],
                },
            )
        return commits

    def commit_at(self, date: str) -> Commit | None:
        """The newest first-parent commit (that changed a kep.yaml) committed on or before ``date``
        (``YYYY-MM-DD``, the whole day in UTC counts); ``None`` when none."""
        from datetime import datetime, timedelta

        limit = datetime.fromisoformat(date).replace(tzinfo=UTC) + timedelta(days=1)
        for commit in self.log():
            if datetime.fromisoformat(commit.date) < limit:
                return commit
        return None


def _shallow_commits(repo: Path) -> tuple[str, ...]:
    """The boundary commits of a shallow clone, from git's ``shallow`` file (``git rev-parse --git-path
    shallow``), sorted; ``()`` for a full clone."""
    out = (try_git(repo, "rev-parse", "--git-path", "shallow") or "").strip()
    if not out:
        return ()
    path = Path(out)
    try:
        text = read_regular(path if path.is_absolute() else repo / path, CACHE_ENTRY_BYTES).decode("ascii", "replace")
    except OSError:
        return ()
    return tuple(sorted({line.strip() for line in text.splitlines() if line.strip()}))


def _parser_stamp() -> str:
    """A fingerprint of the code that turns a blob into fields (the kep.yaml loader and the field list):
    cached fields parsed by another version of it are not reused."""
    import bot.model.history.fields
    import bot.model.kep

    digest = hashlib.sha256()
    for module in (bot.model.kep, bot.model.history.fields):
        path = module.__file__
        try:
            digest.update(Path(path).read_bytes() if path is not None else b"?")
        except OSError:
            digest.update(b"?")
    return digest.hexdigest()[:16]


def _git_log(repo: Path, revisions: str) -> str:
    return run_git(
        repo,
        "-c",
        "core.quotePath=false",
        "log",
        "--first-parent",
        "--raw",
        "--no-renames",
        "--no-abbrev",
        f"--format={LOG_FORMAT}",
        revisions,
        "--",
        _PATHSPEC,
    )


def _on_first_parent_line(repo: Path, old: str, new: str) -> bool:
    """True when ``old`` is on the first-parent line of ``new`` (so the log of ``old..new`` extends old's log)."""
    newer = (try_git(repo, "rev-list", "--first-parent", f"{old}..{new}") or "").split()
    if not newer:
        return False  # git failed, or new is old, or behind it
    return (try_git(repo, "rev-parse", "-q", "--verify", f"{newer[-1]}^1") or "").strip() == old


def _plain(c: Commit) -> list:
    return [c.sha, c.parent, c.date, c.subject, c.pr, [list(f) for f in c.files]]


def _commit(raw: list) -> Commit:
    sha, parent, date, subject, pr, files = raw
    return Commit(sha, parent, date, subject, pr, tuple(FileChange(*f) for f in files))


def _checked(path: Path, read, cached: dict):
    """``read(cached)``, or ``None`` (and a warning log naming ``path``) when the cache has the wrong shape:
    a bad cache is rebuilt by the caller, never trusted and never a crash."""
    try:
        return read(cached)
    except (TypeError, ValueError) as exc:
        import structlog

        structlog.get_logger().warning("history cache discarded; rebuilding it", file=str(path), reason=str(exc))
        return None


def _is_str(*values: object) -> bool:
    return all(isinstance(v, str) for v in values)


def _commits_of(cached: dict) -> list[Commit]:
    """The commits of a ``log.json`` cache; raises ValueError naming the first value of the wrong shape."""
    head, commits = cached.get("head"), cached.get("commits")
    if not _is_str(head) or not isinstance(commits, list):
        raise ValueError("log.json: 'head' must be a string and 'commits' a list")
    out = []
    for i, raw in enumerate(commits):
        ok = (
            isinstance(raw, list)
            and len(raw) == 6
            and _is_str(*raw[:4])
            and type(raw[4]) is int
            and isinstance(raw[5], list)
            and all(isinstance(f, list) and len(f) == 4 and _is_str(*f) and f[0] in ("A", "M", "D") for f in raw[5])
        )
        if not ok:
            raise ValueError(
                f"log.json: commits[{i}] is not [sha, parent, date, subject, pr, [[status, path, old, new]]]"
            )
        out.append(_commit(raw))
    return out


def _blobs_of(cached: dict) -> dict[str, dict | None]:
    """The blob fields of a ``blobs.json`` cache; raises ValueError naming the first value of the wrong shape
    (each blob: ``null`` or every tracked field as a string)."""
    from bot.model.history.fields import TRACKED

    blobs = cached.get("blobs")
    if not isinstance(blobs, dict):
        raise ValueError("blobs.json: 'blobs' must be an object")
    for blob, fields in blobs.items():
        if fields is None:
            continue
        if (
            not isinstance(fields, dict)
            or not all(_is_str(k, v) for k, v in fields.items())
            or not set(TRACKED) <= set(fields)
        ):
            raise ValueError(f"blobs.json: blob {blob[:40]!r} is not null nor an object of tracked fields as strings")
    return blobs


def _read_json(path: Path, default: dict) -> dict:
    try:
        data = json.loads(read_regular(path, CACHE_ENTRY_BYTES))
    except (OSError, ValueError, RecursionError):
        return default
    return data if isinstance(data, dict) and data.get("version") == CACHE_VERSION else default


def _write_json(path: Path, data: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


def open_history(kind: str, location: str, cache_dir: Path, revision: str = "") -> GitHistory | None:
    """The :class:`GitHistory` of an ``--enhancements`` source (``kind``/``location`` from
    :func:`bot.sources.enhancements.parse_source`), or ``None`` when it has none (a plain directory, a
    ``github`` source, any other kind).

    ``revision``: the commit to read from (default: the source's head); a git
    source reuses the clone :func:`~bot.sources.git.sync_git_cache` keeps in ``cache_dir``.
    """
    if kind not in ("dir", "git"):  # github: one request per file instead (github_last_commits); tarballs: none
        return None
    if kind == "dir":
        repo = Path(location)
        head = revision or worktree_head(repo)
        if not head:
            return None
    else:
        repo = sync_git_cache(location, cache_dir) if not revision else _cached_clone(location, cache_dir)
        head = revision or run_git(repo, "rev-parse", "HEAD").strip()
    key = hashlib.sha256(str(repo.resolve()).encode()).hexdigest()[:16]
    return GitHistory(repo, head, cache_dir / "history" / key)


def _cached_clone(location: str, cache_dir: Path) -> Path:
    repo = git_cache_path(location, cache_dir)
    return repo if (repo / "HEAD").is_file() else sync_git_cache(location, cache_dir)


def resolve_revision(history: GitHistory, revision: str) -> str:
    """The full commit SHA ``revision`` (a SHA, branch or tag) names in the history's repository;
    raises :class:`UsageError` when it names none."""
    sha = try_git(history.repo, "rev-parse", "--verify", "-q", f"{revision}^{{commit}}")
    if sha is None or revision.startswith("-"):
        raise UsageError(f"--revision {revision!r}: no such commit in {history.repo}")
    return sha.strip()


def snapshot_at(history: GitHistory, revision: str, source: str):
    """The :class:`~bot.model.snapshot.Snapshot` of every kep.yaml at ``revision`` of the history's repository."""
    from bot.model.snapshot import build_snapshot
    from bot.sources.enhancements import with_problems
    from bot.sources.git import scan_git_tree

    files, problems = scan_git_tree(history.repo, revision)
    return with_problems(build_snapshot(files, source, revision), problems)


def github_last_commits(
    client, api_url: str, repo: str, revision: str, paths: Iterable[str], max_requests: int
) -> tuple[dict[str, Commit], int]:
    """The newest commit touching each kep.yaml in ``paths`` at ``revision`` of ``repo`` (``OWNER/NAME``).

    One ``GET /repos/{owner}/{repo}/commits?path=P&sha=REV&per_page=1`` per path
    (GitHub REST docs, "List commits"), at most ``max_requests``; the paths
    beyond the cap and paths the API answers with an error or no commit are
    left out; a transport error (after the client's retries) ends the loop.
    Returns ``({path: Commit}, requests sent)``. ``client`` is an
    ``httpx.Client`` from :func:`bot.http.make_client`.
    """
    import httpx

    from bot.http import send

    found: dict[str, Commit] = {}
    sent = 0
    for path in sorted(set(paths)):
        if sent >= max_requests:
            break
        sent += 1
        url = f"{api_url.rstrip('/')}/repos/{repo}/commits"
        try:
            response = send(
                client,
                "GET",
                url,
                params={"path": path, "sha": revision, "per_page": "1"},
                headers={"Accept": "application/vnd.github+json"},
            )
        except httpx.HTTPError:
            break  # provenance is an extra: a dead connection leaves the rest without it, the sync goes on
        if response.status_code != 200:
            continue
        try:
            items = response.json()
            item = items[0]
            message = item["commit"]["message"]
            date = item["commit"]["committer"]["date"]
            sha = item["sha"]
        except (ValueError, LookupError, TypeError):
            continue
        subject, pr = message_subject(message) if isinstance(message, str) else ("", 0)
        found[path] = Commit(str(sha), "", str(date), subject, pr, ())
    return found, sent


def read_history(source_kind: str, location: str, cache_dir: Path, revision: str) -> GitHistory | None:
    """The :class:`GitHistory` of an already loaded snapshot's source at ``revision`` (no fetch: the clone
    :func:`~bot.sources.git.sync_git_cache` made is reused), ``None`` for a source without local history."""
    if not revision:
        return None
    return open_history(source_kind, location, cache_dir, revision)
