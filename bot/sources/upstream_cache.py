"""On-disk cache of a ``github:`` enhancements source, by commit: the ref's ETag, the metadata files of each
revision read and the provenance answers (the newest commit touching each kep.yaml).

Layout, under ``cache_dir/upstream/KEY/`` (``KEY``: 16 hex of the SHA-256 of ``API_URL OWNER/REPO``, so
another source never shares a directory):

- ``ref-HASH.json``: ``{"ref", "etag", "revision"}`` of the last ref lookup (``HASH`` of the ref name);
- ``files-SHA.json``: ``{"files": [[path, blob id, text]], "problems": [[path, key, message]]}``, the
  metadata files at commit ``SHA`` (text: the bytes as UTF-8 with surrogate escapes; ``""`` for a PRR file,
  whose name alone is read);
- ``commits-SHA.json``: ``{"commits": {path: [commit sha, date, subject, pr]}}`` at commit ``SHA``.

Every file also holds ``version`` (:data:`CACHE_VERSION`), ``source`` (``API_URL OWNER/REPO``) and, but for
the ref, ``revision``. An entry that is unreadable, of another version, of another source or revision, of
the wrong shape, or whose kep.yaml text does not hash to its blob id is ignored, never trusted: it becomes a
:class:`~bot.model.kep.Problem` naming the file, and the data is read from upstream again. A write that
fails is a problem too; the run goes on without the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import NamedTuple

from bot.fileread import CACHE_ENTRY_BYTES, read_regular
from bot.model.history.log import Commit
from bot.model.kep import Problem
from bot.model.snapshot import is_kep_file, is_prr_file
from bot.sources.tarball import SHA_RE

#: Bumped when the layout changes; entries of another version are ignored.
CACHE_VERSION = 1
#: ``files-*.json`` entries kept (the newest by modification time): the current revision and the one before.
KEEP_REVISIONS = 2


def blob_id(data: bytes) -> str:
    """The git blob id of ``data`` (SHA-1 of ``blob LEN\\0`` + data), as GitHub's APIs give it."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class Files(NamedTuple):
    """The metadata files of one ``revision``: ``files`` ``{path: (blob id, bytes)}`` (``b""`` for a PRR file)
    and the file-level ``problems`` of the read that produced them."""

    revision: str
    files: dict[str, tuple[str, bytes]]
    problems: tuple[Problem, ...]

    def pairs(self) -> list[tuple[str, bytes]]:
        """``[(path, bytes)]`` sorted by path, as :func:`bot.model.snapshot.build_snapshot` takes them."""
        return [(path, data) for path, (_, data) in sorted(self.files.items())]


def files_of(revision: str, pairs: list[tuple[str, bytes]], problems: list[Problem]) -> Files:
    """:class:`Files` from a full read's ``(path, bytes)`` pairs: blob ids computed here, PRR bytes dropped."""
    return Files(revision, {p: (blob_id(d), b"" if is_prr_file(p) else d) for p, d in pairs}, tuple(problems))


class UpstreamCache:
    """The cache directory of one source (``root``); ``source`` is ``API_URL OWNER/REPO``; what it cannot use
    or write goes to ``problems`` (a list shared with the caller)."""

    def __init__(self, cache_dir: Path, source: str, problems: list[Problem]):
        self.root = cache_dir / "upstream" / hashlib.sha256(source.encode()).hexdigest()[:16]
        self.source, self.problems = source, problems

    # -------------------------------------------------------------- the ref
    def ref(self, ref: str) -> tuple[str, str]:
        """``(ETag, revision)`` stored for ``ref``; ``("", "")`` when none can be trusted."""
        data = self._read(self._ref_path(ref))
        if data is None:
            return "", ""
        etag, revision = data.get("etag"), data.get("revision")
        if (
            data.get("ref") != ref
            or not isinstance(etag, str)
            or not isinstance(revision, str)
            or not SHA_RE.fullmatch(revision)
        ):
            self._ignored(self._ref_path(ref), "not a ref entry of this ref")
            return "", ""
        return etag, revision

    def put_ref(self, ref: str, etag: str, revision: str) -> None:
        self._write(self._ref_path(ref), {"ref": ref, "etag": etag, "revision": revision})

    def _ref_path(self, ref: str) -> Path:
        return self.root / f"ref-{hashlib.sha256(ref.encode()).hexdigest()[:16]}.json"

    # -------------------------------------------------------------- files
    def files(self, revision: str) -> Files | None:
        """The files stored for ``revision``, or ``None`` (absent, or ignored with a problem)."""
        path = self.root / f"files-{revision}.json"
        data = self._read(path, revision)
        if data is None:
            return None
        try:
            return _files_from(revision, data)
        except (TypeError, ValueError) as exc:
            self._ignored(path, str(exc))
            return None

    def latest(self, but: str = "") -> Files | None:
        """The newest usable files entry other than revision ``but`` (the base of an incremental read)."""
        for path in self._entries("files-"):
            revision = path.name[len("files-") : -len(".json")]
            if revision != but and SHA_RE.fullmatch(revision):
                found = self.files(revision)
                if found is not None:
                    return found
        return None

    def put_files(self, files: Files) -> None:
        """Store ``files`` and drop all but the newest :data:`KEEP_REVISIONS` revisions (with their commits)."""
        rows = [[p, blob, data.decode("utf-8", "surrogateescape")] for p, (blob, data) in sorted(files.files.items())]
        self._write(
            self.root / f"files-{files.revision}.json",
            {"revision": files.revision, "files": rows, "problems": [list(p) for p in files.problems]},
        )
        for old in self._entries("files-")[KEEP_REVISIONS:]:
            revision = old.name[len("files-") : -len(".json")]
            for stale in (old, self.root / f"commits-{revision}.json"):
                stale.unlink(missing_ok=True)

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
            self._ignored(path, str(exc))
            return {}

    def put_commits(self, revision: str, commits: dict[str, Commit]) -> None:
        rows = {p: [c.sha, c.date, c.subject, c.pr] for p, c in sorted(commits.items()) if SHA_RE.fullmatch(c.sha)}
        self._write(self.root / f"commits-{revision}.json", {"revision": revision, "commits": rows})

    # -------------------------------------------------------------- plumbing
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

    def _read(self, path: Path, revision: str = "") -> dict | None:
        """The JSON object at ``path`` when it is an entry of this source (and ``revision``); ``None`` when absent
        or ignored (with a problem)."""
        try:
            raw = read_regular(path, CACHE_ENTRY_BYTES)
        except FileNotFoundError:
            return None
        except OSError as exc:
            self._ignored(path, f"cannot be read ({exc.strerror or exc})")
            return None
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            self._ignored(path, "not JSON")
            return None
        if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
            self._ignored(path, f"not a version {CACHE_VERSION} entry")
        elif data.get("source") != self.source:
            self._ignored(path, "an entry of another source")
        elif revision and data.get("revision") != revision:
            self._ignored(path, f"not an entry of commit {revision}")
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

    def _ignored(self, path: Path, why: str) -> None:
        self.problems.append(Problem(str(path), "", f"upstream cache entry ignored: {why}; read from upstream instead"))


def _files_from(revision: str, data: dict) -> Files:
    """:class:`Files` of a ``files-SHA.json`` object; raises ValueError naming what is wrong (a row of the
    wrong shape, a path that is not a metadata file, a kep.yaml whose text does not hash to its blob id)."""
    rows, problems = data.get("files"), data.get("problems")
    if not isinstance(rows, list) or not isinstance(problems, list):
        raise ValueError("'files' and 'problems' must be lists")
    files: dict[str, tuple[str, bytes]] = {}
    for row in rows:
        if not (
            isinstance(row, list)
            and len(row) == 3
            and all(isinstance(v, str) for v in row)
            and (is_kep_file(row[0]) or is_prr_file(row[0]))
            and SHA_RE.fullmatch(row[1])
        ):
            raise ValueError(f"files: {str(row)[:80]} is not [metadata path, blob id, text]")
        data_ = row[2].encode("utf-8", "surrogateescape")
        if is_kep_file(row[0]) and blob_id(data_) != row[1]:
            raise ValueError(f"{row[0]}: its text does not match blob {row[1]}")
        files[row[0]] = (row[1], data_)
    if not all(isinstance(p, list) and len(p) == 3 and all(isinstance(v, str) for v in p) for p in problems):
        raise ValueError("problems: not [path, key, message] rows")
    return Files(revision, files, tuple(Problem(*p) for p in problems))


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
