"""On-disk cache of a ``github:`` enhancements source, by commit: the metadata files of each revision read, with
the listing of ``keps/`` that lets them be checked, and the provenance answers (the newest commit touching each
kep.yaml).

Layout, under ``cache_dir/upstream/KEY/`` (``KEY``: 16 hex of the SHA-256 of ``API_URL OWNER/REPO``, the API URL
without user-info, so another source never shares a directory):

- ``files-SHA.json``: the files at commit ``SHA``: ``tree`` (the commit's tree id), ``top`` (``[[name, mode,
  id]]``, the root tree's entries but ``keps``), ``keps`` (``[[path, mode, id]]``, every entry below ``keps/``
  that is not a tree), ``texts`` (``[[path, text]]``, each kep.yaml read; text: the bytes as UTF-8 with
  surrogate escapes) and ``large`` (the kep.yaml paths over :data:`~bot.sources.localfs.MAX_FILE_BYTES`);
- ``commits-SHA.json``: ``{"commits": {path: [commit sha, date, subject, pr]}}`` at commit ``SHA``.

Every file also holds ``version`` (:data:`CACHE_VERSION`), ``source`` and ``revision``. A writer of
``cache_dir`` can change any of it, so nothing in an entry is trusted: :meth:`Files.check` ties an entry to the
tree id GitHub gives for the commit in the same run (git's tree ids hash the listing, the listing's blob ids
hash the texts), and :mod:`bot.sources.upstream` reads upstream again when it does not hold. An entry that is
unreadable, of another version, source or revision, or of the wrong shape is ignored with a
:class:`~bot.model.kep.Problem` naming the file; a file of an older version (kep-sync before version 2 wrote the
API URL as given, user-info too) is deleted. A write that fails is a problem too; the run goes on without the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import NamedTuple

from bot.fileread import CACHE_ENTRY_BYTES, open_regular, read_regular
from bot.model.history.log import Commit
from bot.model.kep import Problem
from bot.model.snapshot import is_kep_file, is_prr_file
from bot.sources.git_tree import FILE_MODES, LEAF_MODES, LINK_MODE, blob_id, root_id, subtree_id
from bot.sources.localfs import MAX_FILE_BYTES
from bot.sources.tarball import ARCHIVE_LINK, SHA_RE

__all__ = ["CACHE_VERSION", "KEEP_REVISIONS", "LARGE", "Files", "UpstreamCache", "blob_id"]

#: Bumped when the layout changes; files of an older version are deleted, of a newer one ignored.
CACHE_VERSION = 2
#: ``files-*.json`` entries kept (the newest by modification time): the current revision and the one before.
KEEP_REVISIONS = 2
#: The problem of a metadata file over the size cap, as every reader words it.
LARGE = f"larger than {MAX_FILE_BYTES} bytes; skipped"


class Files(NamedTuple):
    """The metadata files of one ``revision`` and the tree they were read from: ``tree`` (the commit's tree id),
    ``top`` ``{name: (mode, id)}`` (the root tree's entries but ``keps``), ``keps`` ``{path: (mode, id)}`` (every
    entry below ``keps/`` that is not a tree), ``texts`` ``{kep.yaml path: bytes}`` and ``large`` (kep.yaml paths
    over :data:`~bot.sources.localfs.MAX_FILE_BYTES`, not read)."""

    revision: str
    tree: str
    top: dict[str, tuple[str, str]]
    keps: dict[str, tuple[str, str]]
    texts: dict[str, bytes]
    large: frozenset[str]

    def wanted(self) -> dict[str, str]:
        """``{kep.yaml path: blob id}`` of the kep.yaml files the listing holds as files."""
        return {p: sha for p, (mode, sha) in self.keps.items() if is_kep_file(p) and mode in FILE_MODES}

    def pairs(self) -> list[tuple[str, bytes]]:
        """``[(path, bytes)]`` sorted by path, as :func:`bot.model.snapshot.build_snapshot` takes them (PRR files
        with ``b""``: only their names are read)."""
        prr = [(p, b"") for p, (mode, _) in self.keps.items() if is_prr_file(p) and mode in FILE_MODES]
        return sorted([*self.texts.items(), *prr])

    def problems(self) -> list[Problem]:
        """The file-level problems a full read (the tarball) has at this tree: symbolic links, files over the cap."""
        links = [Problem(p, "", ARCHIVE_LINK) for p, (mode, _) in self.keps.items() if mode == LINK_MODE]
        return sorted(links + [Problem(p, "", LARGE) for p in self.large])

    def check(self, tree: str) -> str:
        """Why this entry is not the files of a commit whose tree id is ``tree`` (GitHub's answer), ``""`` when it
        is: the listing hashes to ``tree`` and every kep.yaml of the listing is read (its text hashes to its blob
        id) or over the cap. (A file claimed over the cap is checked by reading it: :mod:`bot.sources.upstream`.)"""
        try:
            computed = root_id(self.top, subtree_id(self.keps, "keps"))
        except ValueError as exc:
            return f"its listing of the tree is not one ({exc})"
        if computed != tree or self.tree != tree:
            return f"its listing of keps/ does not hash to tree {tree} of commit {self.revision}"
        wanted = self.wanted()
        for path in sorted(set(wanted) ^ (set(self.texts) | self.large)):
            return f"{path}: {'not in the listing' if path not in wanted else 'missing'}"
        for path in sorted(self.texts):
            if path in self.large or blob_id(self.texts[path]) != wanted[path]:
                return f"{path}: its text is not blob {wanted[path]}"
        return ""


class UpstreamCache:
    """The cache directory of one source (``root``); ``source`` is ``API_URL OWNER/REPO`` (no user-info); what it
    cannot use or write goes to ``problems`` (a list shared with the caller)."""

    def __init__(self, cache_dir: Path, source: str, problems: list[Problem]):
        self.top = cache_dir / "upstream"
        self.root = self.top / hashlib.sha256(source.encode()).hexdigest()[:16]
        self.source, self.problems = source, problems

    # -------------------------------------------------------------- files
    def files(self, revision: str) -> Files | None:
        """The files stored for ``revision`` (shape checked, not :meth:`Files.check`), or ``None`` (absent, or
        ignored with a problem)."""
        path = self.root / f"files-{revision}.json"
        data = self._read(path, revision)
        if data is None:
            return None
        try:
            return _files_from(revision, data)
        except (TypeError, ValueError) as exc:
            self.ignored(path, str(exc))
            return None

    def latest(self, but: str = "") -> Files | None:
        """The newest files entry of the right shape other than revision ``but`` (the base of an incremental read)."""
        for path in self._entries("files-"):
            revision = path.name[len("files-") : -len(".json")]
            if revision != but and SHA_RE.fullmatch(revision):
                found = self.files(revision)
                if found is not None:
                    return found
        return None

    def entry_path(self, revision: str) -> Path:
        return self.root / f"files-{revision}.json"

    def put_files(self, files: Files) -> None:
        """Store ``files`` and drop all but the newest :data:`KEEP_REVISIONS` revisions (with their commits)."""
        self._write(
            self.entry_path(files.revision),
            {
                "revision": files.revision,
                "tree": files.tree,
                "top": [[n, m, s] for n, (m, s) in sorted(files.top.items())],
                "keps": [[p, m, s] for p, (m, s) in sorted(files.keps.items())],
                "texts": [[p, t.decode("utf-8", "surrogateescape")] for p, t in sorted(files.texts.items())],
                "large": sorted(files.large),
            },
        )
        for old in self._entries("files-")[KEEP_REVISIONS:]:
            revision = old.name[len("files-") : -len(".json")]
            for stale in (old, self.root / f"commits-{revision}.json"):
                stale.unlink(missing_ok=True)

    def drop(self, revision: str) -> None:
        """Delete the files entry of ``revision`` (one that did not hold)."""
        self.entry_path(revision).unlink(missing_ok=True)

    # -------------------------------------------------------------- provenance answers
    def commits(self, revision: str) -> dict[str, Commit]:
        """``{kep.yaml path: newest commit touching it}`` stored for ``revision`` (``{}`` when none)."""
        path = self.root / f"commits-{revision}.json"
        data = self._read(path, revision)
        if data is None:
            return {}
        try:
            return _commits_from(data)
        except (TypeError, ValueError) as exc:
            self.ignored(path, str(exc))
            return {}

    def put_commits(self, revision: str, commits: dict[str, Commit]) -> None:
        rows = {p: [c.sha, c.date, c.subject, c.pr] for p, c in sorted(commits.items()) if SHA_RE.fullmatch(c.sha)}
        self._write(self.root / f"commits-{revision}.json", {"revision": revision, "commits": rows})

    # -------------------------------------------------------------- plumbing
    def clean(self) -> None:
        """Delete every file under ``cache_dir/upstream/`` written by an older version of this cache (a version 1
        file keeps the API URL as configured, user-info too) and the directories left empty."""
        try:
            dirs = [d for d in self.top.iterdir() if d.is_dir() and not d.is_symlink()]
        except OSError:
            return
        for folder in dirs:
            try:
                names = [p for p in folder.iterdir() if p.suffix == ".json" and p.is_file()]
            except OSError:
                continue
            for path in names:
                version = _version(path)
                if version is not None and version < CACHE_VERSION:
                    path.unlink(missing_ok=True)
            try:
                folder.rmdir()  # only when empty
            except OSError:
                pass

    def _entries(self, prefix: str) -> list[Path]:
        """Entries named ``PREFIX<sha>.json``, newest first."""
        try:
            found = [p for p in self.root.iterdir() if p.name.startswith(prefix) and p.suffix == ".json"]
        except OSError:
            return []
        stamped = []
        for p in found:
            try:
                stamped.append((p.stat().st_mtime_ns, p.name, p))
            except OSError:
                continue
        return [p for *_, p in sorted(stamped, reverse=True)]

    def _read(self, path: Path, revision: str) -> dict | None:
        """The JSON object at ``path`` when it is an entry of this source and ``revision``; ``None`` when absent
        or ignored (with a problem)."""
        try:
            raw = read_regular(path, CACHE_ENTRY_BYTES)
        except FileNotFoundError:
            return None
        except OSError as exc:
            self.ignored(path, f"cannot be read ({exc.strerror or exc})")
            return None
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            self.ignored(path, "not JSON")
            return None
        if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
            self.ignored(path, f"not a version {CACHE_VERSION} entry")
        elif data.get("source") != self.source:
            self.ignored(path, "an entry of another source")
        elif data.get("revision") != revision:
            self.ignored(path, f"not an entry of commit {revision}")
        else:
            return data
        return None

    def _write(self, path: Path, data: dict) -> None:
        tmp = None
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=self.root)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"version": CACHE_VERSION, "source": self.source, **data}, fh, separators=(",", ":"))
            os.replace(tmp, path)
            tmp = None
        except OSError as exc:
            self.problems.append(
                Problem(
                    str(path),
                    "",
                    f"upstream cache not written ({exc.strerror or exc}); the next run reads upstream again",
                )
            )
        finally:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)

    def ignored(self, path: Path, why: str) -> None:
        """Record that the entry at ``path`` was not used, and why (a problem of the run)."""
        self.problems.append(Problem(str(path), "", f"upstream cache entry ignored: {why}; read from upstream instead"))


def _version(path: Path) -> int | None:
    """The ``version`` an entry starts with (every version writes it first), ``None`` when it starts otherwise."""
    try:
        with open_regular(path) as fh:
            head = fh.read(32)
    except OSError:
        return None
    found = re.match(rb'\s*\{\s*"version"\s*:\s*(\d{1,6})\s*[,}]', head)
    return int(found.group(1)) if found else None


def _rows(data: dict, key: str, width: int) -> list[list[str]]:
    rows = data.get(key)
    if not isinstance(rows, list) or not all(
        isinstance(r, list) and len(r) == width and all(isinstance(v, str) for v in r) for r in rows
    ):
        raise ValueError(f"{key!r} must be a list of {width} strings each")
    return rows


def _files_from(revision: str, data: dict) -> Files:
    """:class:`Files` of a ``files-SHA.json`` object; raises ValueError naming what is wrong (a row of the wrong
    shape, a mode or id that is not git's, a path that is not below ``keps/``, a text of a path that is not a
    kep.yaml)."""
    tree = data.get("tree")
    if not (isinstance(tree, str) and SHA_RE.fullmatch(tree)):
        raise ValueError("'tree' is not a tree id")
    top = {n: (m, s) for n, m, s in _rows(data, "top", 3)}
    keps = {p: (m, s) for p, m, s in _rows(data, "keps", 3)}
    for path, (mode, sha) in keps.items():
        if not path.startswith("keps/") or mode not in LEAF_MODES or not SHA_RE.fullmatch(sha):
            raise ValueError(f"keps: {path[:80]!r} is not [path below keps/, mode, id]")
    texts = {p: t.encode("utf-8", "surrogateescape") for p, t in _rows(data, "texts", 2)}
    large = data.get("large")
    if not isinstance(large, list) or not all(isinstance(p, str) for p in large):
        raise ValueError("'large' must be a list of paths")
    if not all(is_kep_file(p) for p in [*texts, *large]):
        raise ValueError("texts and large name kep.yaml files only")
    return Files(revision, tree, top, keps, texts, frozenset(large))


def _commits_from(data: dict) -> dict[str, Commit]:
    """The answers of a ``commits-SHA.json`` object; raises ValueError when one has the wrong shape."""
    rows = data.get("commits")
    if not isinstance(rows, dict):
        raise ValueError("'commits' must be an object")
    out = {}
    for path, row in rows.items():
        if not (
            is_kep_file(path)
            and isinstance(row, list)
            and len(row) == 4
            and SHA_RE.fullmatch(str(row[0]))
            and isinstance(row[1], str)
            and isinstance(row[2], str)
            and type(row[3]) is int
            and row[3] >= 0
        ):
            raise ValueError(f"commits: {path[:80]!r} is not [sha, date, subject, pr]")
        out[path] = Commit(row[0], "", row[1], row[2], row[3], ())
    return out
