"""Unit tests for bot.sources.enhancements (directory, git, GitHub tarball) and bot.http.

Git tests use real repositories made in ``tmp_path`` (tests/gitutil.py); GitHub
tests serve crafted tarballs through ``httpx.MockTransport``. Nothing touches
the network and nothing sleeps.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import http.server
import io
import json
import os
import random
import tarfile
import threading
from pathlib import Path

import httpx
import pytest

import bot.sources.git as git_source
import bot.sources.github_tarball as enh
from bot import http as bot_http
from bot.errors import KepSyncError, SourceError, UsageError
from bot.http import (
    MAX_ATTEMPTS,
    USER_AGENT,
    RequestCounter,
    make_client,
    rate_limit_wait,
    send,
)
from bot.model.kep import Problem
from bot.redact import redact
from bot.sources import parse_github_spec
from bot.sources.enhancements import (
    Source,
    github_url,
    load_snapshot,
    parse_source,
    probe_github_ref,
    read_directory,
    read_git_tree,
    read_tarball,
    resolve_github_ref,
    scan_git_tree,
    sync_git_cache,
)
from bot.sources.localfs import decode_path, read_regular_file, scan_directory

try:
    from gitutil import commit, git, make_repo
except ImportError:  # pragma: no cover - when tests/ is imported as a package
    from tests.gitutil import commit, git, make_repo

TOKEN = "ghp_secret1234567890"
SHA = "0123456789abcdef0123456789abcdef01234567"
API = "https://api.github.com"
TOP = f"kubernetes-enhancements-{SHA[:7]}"


def kep(number: str, title: str = "T", stage: str = "alpha") -> str:
    return f'title: {title}\nkep-number: "{number}"\nstatus: implementable\nstage: {stage}\n'


#: A small upstream tree: two KEPs, a template, a PRR file and files that must be ignored.
UPSTREAM = {
    "keps/sig-a/1-first/kep.yaml": kep("1", "First"),
    "keps/sig-a/1-first/README.md": "# First\n",
    "keps/sig-b/2-second/kep.yaml": kep("2", "Second", "beta"),
    "keps/NNNN-kep-template/kep.yaml": "title: template\nkep-number: NNNN\n",
    "keps/prod-readiness/sig-a/1.yaml": "kep-number: 1\nalpha:\n  approver: '@someone'\n",
    "keps/prod-readiness/sig-a/notes.md": "notes\n",
    "keps/sig-a/other.yaml": "not: a kep\n",
    "api/proposal.go": "package api\n",
    "README.md": "# enhancements\n",
}
WANTED = sorted(p for p in UPSTREAM if p.endswith("/kep.yaml") or p.startswith("keps/prod-readiness/") and p.endswith(".yaml"))


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch, tmp_path):
    """Keep git away from the user's config, parent repositories and prompts."""
    cfg = tmp_path / "gitconfig"
    cfg.write_text("[init]\n\tdefaultBranch = master\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(cfg))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "0")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)
    return cfg


# =====================================================================================
# parse_source
# =====================================================================================

@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("github:kubernetes/enhancements@master", Source("github", "kubernetes/enhancements", "master")),
        ("github:kubernetes/enhancements", Source("github", "kubernetes/enhancements", "HEAD")),
        ("github:k8s.io/enh_ance-ments@v1.30", Source("github", "k8s.io/enh_ance-ments", "v1.30")),
        ("github:o/r@release/1.30", Source("github", "o/r", "release/1.30")),
        ("github:o/r@0123456789abcdef0123456789abcdef01234567", Source("github", "o/r", SHA)),
        ("https://github.com/kubernetes/enhancements.git", Source("git", "https://github.com/kubernetes/enhancements.git")),
        ("http://git.example/enh", Source("git", "http://git.example/enh")),
        ("file:///srv/git/enhancements", Source("git", "file:///srv/git/enhancements")),
        ("ssh://git@github.com/kubernetes/enhancements", Source("git", "ssh://git@github.com/kubernetes/enhancements")),
        ("git://git.example/enh.git", Source("git", "git://git.example/enh.git")),
    ],
)
def test_parse_source_urls_and_github(value, expected):
    assert parse_source(value) == expected


@pytest.mark.parametrize(
    "value",
    ["github:kubernetes", "github:o/r@", "github:o/r/x", "github:", "github:o r/x", "github:/r@main",
     "github:o/r/../x@main", "github:o\n/r@main"],
)
def test_parse_source_bad_github_forms(value):
    with pytest.raises(UsageError) as info:
        parse_source(value)
    assert str(info.value) == f"enhancements (--enhancements) {value!r}: expected github:OWNER/REPO@REF"


def test_parse_source_local_forms(tmp_path, monkeypatch):
    checkout = tmp_path / "enh"
    make_repo(checkout, {"keps/sig-a/1-first/kep.yaml": kep("1")})
    plain = tmp_path / "plain"
    (plain / "keps").mkdir(parents=True)
    bare = tmp_path / "enh.git"
    git(tmp_path, "clone", "-q", "--bare", str(checkout), str(bare))
    no_keps_checkout = tmp_path / "other"
    make_repo(no_keps_checkout, {"README.md": "x"})
    bundle = tmp_path / "enh.bundle"
    git(checkout, "bundle", "create", str(bundle), "--all")

    assert parse_source(str(checkout)) == Source("dir", str(checkout))
    assert parse_source(str(plain)) == Source("dir", str(plain))
    assert parse_source(str(bare)) == Source("git", str(bare.resolve()))
    assert parse_source(str(no_keps_checkout)) == Source("git", str(no_keps_checkout.resolve()))
    assert parse_source(str(bundle)) == Source("git", str(bundle.resolve()))
    monkeypatch.chdir(tmp_path)
    assert parse_source("enh.bundle") == Source("git", str(bundle.resolve()))
    monkeypatch.setenv("HOME", str(tmp_path))
    assert parse_source("~/plain") == Source("dir", str(plain))


@pytest.mark.parametrize("name", ["missing", "empty-dir", "ftp-ish"])
def test_parse_source_rejects_other_values(tmp_path, name):
    (tmp_path / "empty-dir").mkdir()
    value = {"missing": str(tmp_path / "nope"), "empty-dir": str(tmp_path / "empty-dir"),
             "ftp-ish": "ftp://example.invalid/enh"}[name]
    with pytest.raises(UsageError) as info:
        parse_source(value)
    assert str(info.value) == (f"enhancements (--enhancements) {value!r}: not a directory with keps/, a .tar.gz "
                               "snapshot, a git repository, a bundle, a URL or github:OWNER/REPO@REF")


def test_usage_and_source_errors_share_the_root():
    assert issubclass(UsageError, KepSyncError)
    assert issubclass(SourceError, KepSyncError)


def test_load_snapshot_unknown_form_is_usage_error(tmp_path):
    with pytest.raises(UsageError):
        load_snapshot(str(tmp_path / "nope"), tmp_path / "cache")


# =====================================================================================
# directory source
# =====================================================================================

def write_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_read_directory_yields_only_metadata_files_sorted(tmp_path):
    write_tree(tmp_path, UPSTREAM)
    (tmp_path / "keps" / "sig-a" / "1-first" / "kep.yaml.orig").write_text("x")
    got = list(read_directory(tmp_path))
    assert [p for p, _ in got] == [
        "keps/NNNN-kep-template/kep.yaml",
        "keps/prod-readiness/sig-a/1.yaml",
        "keps/sig-a/1-first/kep.yaml",
        "keps/sig-b/2-second/kep.yaml",
    ]
    assert dict(got)["keps/sig-a/1-first/kep.yaml"] == UPSTREAM["keps/sig-a/1-first/kep.yaml"].encode()
    assert dict(got)["keps/prod-readiness/sig-a/1.yaml"] == b""  # only PRR names are used: not read


def test_directory_source_without_git_has_empty_revision(tmp_path):
    write_tree(tmp_path / "enh", UPSTREAM)
    snap = load_snapshot(str(tmp_path / "enh"), tmp_path / "cache")
    assert snap.source == str(tmp_path / "enh")
    assert snap.revision == ""
    assert [(k.number, k.title, k.stage) for k in snap.all_keps()] == [(1, "First", "alpha"), (2, "Second", "beta")]
    assert snap.prr == {1: ("keps/prod-readiness/sig-a/1.yaml",)}
    assert snap.problems == ()
    assert not (tmp_path / "cache").exists()


def test_directory_source_in_a_checkout_uses_head_as_revision(tmp_path):
    sha = make_repo(tmp_path / "enh", UPSTREAM)
    # Uncommitted edits are read too: a directory is read as it is on disk.
    (tmp_path / "enh" / "keps/sig-c/3-third").mkdir(parents=True)
    (tmp_path / "enh" / "keps/sig-c/3-third/kep.yaml").write_text(kep("3"))
    snap = load_snapshot(str(tmp_path / "enh"), tmp_path / "cache")
    assert snap.revision == sha == git(tmp_path / "enh", "rev-parse", "HEAD")
    assert list(snap.keps) == [1, 2, 3]


def test_directory_source_reports_broken_files_and_loads_the_rest(tmp_path):
    write_tree(tmp_path, {**UPSTREAM, "keps/sig-c/3-broken/kep.yaml": "title: [oops\n"})
    snap = load_snapshot(str(tmp_path), tmp_path / "cache")
    assert list(snap.keps) == [1, 2]
    assert snap.problems == (Problem("keps/sig-c/3-broken/kep.yaml", "", "not valid YAML at line 2: did not find "
                                     "expected ',' or ']'"),)


# =====================================================================================
# git source (real repositories)
# =====================================================================================

def cache_repos(cache: Path) -> list[Path]:
    return sorted(p for p in (cache / "git").iterdir()) if (cache / "git").is_dir() else []


def test_git_file_url_clones_into_cache_then_fetches_new_commits(tmp_path):
    up = tmp_path / "up"
    first = make_repo(up, UPSTREAM)
    url = f"file://{up}"
    cache = tmp_path / "cache"

    snap = load_snapshot(url, cache)
    assert snap.revision == first == git(up, "rev-parse", "HEAD")
    assert snap.source == url
    assert list(snap.keps) == [1, 2]
    assert snap.prr == {1: ("keps/prod-readiness/sig-a/1.yaml",)}
    (repo,) = cache_repos(cache)
    assert (repo / "HEAD").is_file() and not (repo / ".git").exists()  # bare
    assert str(up) not in (repo / "config").read_text()  # no remote kept: a URL's credentials stay off disk
    marker = repo / "kep-sync-test-marker"
    marker.write_text("still the same clone")

    second = commit(up, {"keps/sig-c/3-third/kep.yaml": kep("3", "Third"),
                         "keps/sig-b/2-second/kep.yaml": None}, "add 3, drop 2")
    assert second != first
    snap2 = load_snapshot(url, cache)
    assert snap2.revision == second == git(up, "rev-parse", "HEAD")
    assert list(snap2.keps) == [1, 3]
    assert snap2.keps[3][0].title == "Third"
    assert cache_repos(cache) == [repo]
    assert marker.read_text() == "still the same clone"  # fetched, not re-cloned


def test_git_source_reads_commits_not_the_work_tree(tmp_path):
    up = tmp_path / "up"
    sha = make_repo(up, UPSTREAM)
    (up / "keps/sig-a/1-first/kep.yaml").write_text(kep("1", "Edited but not committed"))
    snap = load_snapshot(f"file://{up}", tmp_path / "cache")
    assert snap.revision == sha
    assert snap.keps[1][0].title == "First"


def test_git_source_follows_rewritten_history(tmp_path):
    up = tmp_path / "up"
    make_repo(up, UPSTREAM)
    commit(up, {"keps/sig-c/3-third/kep.yaml": kep("3")}, "add 3")
    cache = tmp_path / "cache"
    load_snapshot(f"file://{up}", cache)
    git(up, "reset", "-q", "--hard", "HEAD~1")
    rewritten = commit(up, {"keps/sig-d/4-fourth/kep.yaml": kep("4")}, "add 4 instead")
    snap = load_snapshot(f"file://{up}", cache)
    assert snap.revision == rewritten
    assert list(snap.keps) == [1, 2, 4]


def test_bare_repository_path_source(tmp_path):
    work = tmp_path / "work"
    make_repo(work, UPSTREAM)
    bare = tmp_path / "enh.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    cache = tmp_path / "cache"
    snap = load_snapshot(str(bare), cache)
    assert snap.source == str(bare)  # as given, never the resolved host path
    assert snap.revision == git(bare, "rev-parse", "HEAD")
    new = commit(work, {"keps/sig-c/3-third/kep.yaml": kep("3")}, "add 3")
    git(work, "push", "-q", str(bare), "main")
    snap2 = load_snapshot(str(bare), cache)
    assert snap2.revision == new
    assert list(snap2.keps) == [1, 2, 3]
    assert len(cache_repos(cache)) == 1


def test_git_bundle_source_and_refreshed_bundle(tmp_path):
    up = tmp_path / "up"
    first = make_repo(up, UPSTREAM)
    bundle = tmp_path / "enh.bundle"
    git(up, "bundle", "create", str(bundle), "--all")
    cache = tmp_path / "cache"
    snap = load_snapshot(str(bundle), cache)
    assert snap.revision == first == git(up, "rev-parse", "HEAD")
    assert snap.source == str(bundle)
    assert list(snap.keps) == [1, 2]

    second = commit(up, {"keps/sig-c/3-third/kep.yaml": kep("3")}, "add 3")
    bundle.unlink()
    git(up, "bundle", "create", str(bundle), "--all")
    snap2 = load_snapshot(str(bundle), cache)
    assert snap2.revision == second
    assert list(snap2.keps) == [1, 2, 3]
    assert len(cache_repos(cache)) == 1


@pytest.mark.parametrize(("default_branch", "bundle_branch"), [("master", "main"), ("main", "master"),
                                                               ("master", "master"), ("main", "main")])
def test_single_branch_bundle_without_head_is_readable(tmp_path, _isolated_git, default_branch, bundle_branch):
    """A bundle of one branch has no HEAD; the cache must not depend on init.defaultBranch."""
    _isolated_git.write_text(f"[init]\n\tdefaultBranch = {default_branch}\n")
    up = tmp_path / "up"
    make_repo(up, UPSTREAM)
    if bundle_branch != "main":
        git(up, "branch", "-m", "main", bundle_branch)
    sha = git(up, "rev-parse", "HEAD")
    bundle = tmp_path / "one.bundle"
    git(up, "bundle", "create", str(bundle), bundle_branch)
    assert "HEAD" not in git(tmp_path, "bundle", "list-heads", str(bundle))
    cache = tmp_path / "cache"
    snap = load_snapshot(str(bundle), cache)
    assert snap.revision == sha
    assert list(snap.keps) == [1, 2]
    # and again, through the fetch path
    sha2 = commit(up, {"keps/sig-c/3-third/kep.yaml": kep("3")}, "add 3")
    bundle.unlink()
    git(up, "bundle", "create", str(bundle), bundle_branch)
    assert load_snapshot(str(bundle), cache).revision == sha2


def test_upstream_default_branch_rename_is_followed(tmp_path):
    up = tmp_path / "up"
    make_repo(up, UPSTREAM)
    cache = tmp_path / "cache"
    load_snapshot(f"file://{up}", cache)
    git(up, "branch", "-m", "main", "trunk")
    new = commit(up, {"keps/sig-c/3-third/kep.yaml": kep("3")}, "add 3")
    snap = load_snapshot(f"file://{up}", cache)
    assert snap.revision == new


def test_read_git_tree_returns_exact_bytes_and_reports_symlinks(tmp_path):
    up = tmp_path / "up"
    files: dict[str, str | bytes] = {
        **UPSTREAM,
        "keps/sig-c/5-empty/kep.yaml": b"",
        "keps/sig-c/6-crlf/kep.yaml": b"title: crlf\r\nkep-number: 6\r\nstatus: implementable\r\nstage: beta\r\n\r\n",
        "keps/sig-c/7-latin1/kep.yaml": b"title: caf\xe9\n",
        "keps/sig-c/8-exec/kep.yaml": kep("8"),
    }
    make_repo(up, files)
    os.chmod(up / "keps/sig-c/8-exec/kep.yaml", 0o755)
    (up / "keps/sig-c/9-link").mkdir(parents=True)
    os.symlink("../8-exec/kep.yaml", up / "keps/sig-c/9-link/kep.yaml")
    sha = commit(up, {}, "exec bit and a symlink")
    assert "100755" in git(up, "ls-tree", "-r", sha, "--", "keps/sig-c/8-exec/kep.yaml")
    assert "120000" in git(up, "ls-tree", "-r", sha, "--", "keps/sig-c/9-link/kep.yaml")

    got = read_git_tree(up, sha)
    expected = {p: (c.encode() if isinstance(c, str) else c) for p, c in files.items()
                if p in WANTED or p.startswith("keps/sig-c/")}
    assert dict(got) == expected
    assert [p for p, _ in got] == sorted(expected)

    snap = load_snapshot(f"file://{up}", tmp_path / "cache")
    assert list(snap.keps) == [1, 2, 6, 8]
    assert snap.keps[6][0].stage == "beta"
    assert snap.problems == (
        Problem("keps/sig-c/5-empty/kep.yaml", "", "file is empty"),
        Problem("keps/sig-c/7-latin1/kep.yaml", "", "not UTF-8 (invalid continuation byte at byte 10)"),
        Problem("keps/sig-c/9-link/kep.yaml", "", "symbolic link; skipped"),
    )


def test_read_git_tree_without_keps_is_empty(tmp_path):
    sha = make_repo(tmp_path / "up", {"README.md": "x"})
    assert read_git_tree(tmp_path / "up", sha) == []


def test_git_clone_failure_is_source_error(tmp_path):
    url = f"file://{tmp_path}/does-not-exist"
    with pytest.raises(SourceError) as info:
        load_snapshot(url, tmp_path / "cache")
    assert str(info.value).startswith(f"git clone {url} failed: ")


def test_git_clone_failure_message_hides_credentials(tmp_path):
    url = f"https://kep-bot:{TOKEN}@127.0.0.1:9/kubernetes/enhancements.git"
    with pytest.raises(SourceError) as info:
        sync_git_cache(url, tmp_path / "cache")
    message = str(info.value)
    assert TOKEN not in message
    assert "kep-bot" not in message
    assert message.startswith("git clone https://***@127.0.0.1:9/kubernetes/enhancements.git failed: ")


def test_git_fetch_failure_is_source_error(tmp_path):
    up = tmp_path / "up"
    make_repo(up, UPSTREAM)
    cache = tmp_path / "cache"
    load_snapshot(f"file://{up}", cache)
    (up / ".git").rename(tmp_path / "moved.git")
    with pytest.raises(SourceError) as info:
        load_snapshot(f"file://{up}", cache)
    assert str(info.value).startswith("git fetch in ")


# =====================================================================================
# GitHub tarball source
# =====================================================================================

def file_info(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    return info, data


def link_info(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info, None


def dir_info(name: str) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE
    info.mode = 0o755
    return info, None


def make_tarball(files: dict[str, str | bytes], *, extra: list = (), top: str = TOP) -> bytes:
    """A GitHub-style .tar.gz: pax global header with the commit, ``top/`` folder, then members."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.PAX_FORMAT, pax_headers={"comment": SHA}) as tar:
        tar.addfile(*dir_info(f"{top}/"))
        dirs: set[str] = set()
        for rel, content in files.items():
            parent = rel.rsplit("/", 1)[0] if "/" in rel else ""
            parts = parent.split("/") if parent else []
            for i in range(1, len(parts) + 1):
                d = "/".join(parts[:i])
                if d not in dirs:
                    dirs.add(d)
                    tar.addfile(*dir_info(f"{top}/{d}/"))
            data = content.encode() if isinstance(content, str) else content
            info, data = file_info(f"{top}/{rel}", data)
            tar.addfile(info, io.BytesIO(data))
        for info, data in extra:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buf.getvalue()


class ChunkedStream(httpx.SyncByteStream):
    """A response body served in small chunks, optionally failing after ``fail_after`` chunks."""

    def __init__(self, data: bytes, chunk: int = 4096, fail_after: int | None = None):
        self.data, self.chunk, self.fail_after, self.served = data, chunk, fail_after, 0
        self.closed = False

    def __iter__(self):
        for i in range(0, len(self.data), self.chunk):
            if self.fail_after is not None and self.served >= self.fail_after:
                raise httpx.ReadError(f"connection reset while sending {TOKEN}")
            self.served += 1
            yield self.data[i:i + self.chunk]

    def close(self) -> None:
        self.closed = True


class FakeGitHub:
    """Serves ``commits/{ref}`` (sha media type) and ``tarball/{sha}`` (302 to a codeload host)."""

    def __init__(self, tarball: bytes = b"", *, sha: str = SHA, repo: str = "kubernetes/enhancements",
                 refs: tuple[str, ...] = ("master", "HEAD"), fail_after: int | None = None,
                 tarball_status: int = 200):
        self.tarball, self.sha, self.repo, self.refs = tarball, sha, repo, refs
        self.fail_after, self.tarball_status = fail_after, tarball_status
        self.requests: list[httpx.Request] = []
        self.streams: list[ChunkedStream] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path
        commits = f"/repos/{self.repo}/commits/"
        if request.url.host == "api.github.com" and path.startswith(commits):
            if request.headers.get("Accept") != "application/vnd.github.sha":
                return httpx.Response(415, json={"message": "wrong media type"})
            if path[len(commits):] not in self.refs:
                return httpx.Response(404, json={"message": "No commit found for SHA"})
            return httpx.Response(200, text=self.sha)
        if request.url.host == "api.github.com" and path == f"/repos/{self.repo}/tarball/{self.sha}":
            return httpx.Response(302, headers={
                "Location": f"https://codeload.example/{self.repo}/legacy.tar.gz/{self.sha}"})
        if request.url.host == "codeload.example":
            if self.tarball_status != 200:
                return httpx.Response(self.tarball_status, text="nope")
            stream = ChunkedStream(self.tarball, fail_after=self.fail_after)
            self.streams.append(stream)
            return httpx.Response(200, headers={"Content-Type": "application/x-gzip"}, stream=stream)
        return httpx.Response(404, json={"message": "Not Found"})


class SleepRecorder:
    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


@pytest.fixture()
def sleeps(monkeypatch) -> SleepRecorder:
    """Make the source module's retries record their waits instead of sleeping."""
    recorder = SleepRecorder()
    monkeypatch.setattr(enh, "send", functools.partial(bot_http.send, sleep=recorder))
    return recorder


def client_for(handler, token: str | None = TOKEN, counter: RequestCounter | None = None) -> httpx.Client:
    return make_client(token, counter=counter, transport=httpx.MockTransport(handler))


TARBALL_FILES = {
    "README.md": "# enhancements\n",
    "api/proposal.go": "package api\n",
    "keps/sig-a/1-first/kep.yaml": kep("1", "First"),
    "keps/sig-a/1-first/README.md": "# First\n",
    "keps/sig-b/2-second/kep.yaml": kep("2", "Second", "beta"),
    "keps/NNNN-kep-template/kep.yaml": "title: template\n",
    "keps/prod-readiness/sig-a/1.yaml": "kep-number: 1\n",
    "keps/prod-readiness/template/nnnn.yaml": "kep-number: NNNN\n",
    "keps/sig-a/other.yaml": "x: y\n",
}


def test_read_tarball_reads_only_metadata_members(sleeps, monkeypatch):
    extracted: list[str] = []
    original = tarfile.TarFile.extractfile

    def recording_extractfile(self, member):
        extracted.append(member.name if isinstance(member, tarfile.TarInfo) else member)
        return original(self, member)

    monkeypatch.setattr(tarfile.TarFile, "extractfile", recording_extractfile)
    gh = FakeGitHub(make_tarball(TARBALL_FILES))
    with client_for(gh) as client:
        files, problems = read_tarball(client, API, "kubernetes/enhancements", SHA)
    expected = ["keps/sig-a/1-first/kep.yaml", "keps/sig-b/2-second/kep.yaml", "keps/NNNN-kep-template/kep.yaml",
                "keps/prod-readiness/sig-a/1.yaml", "keps/prod-readiness/template/nnnn.yaml"]
    assert [p for p, _ in files] == expected
    assert dict(files)["keps/sig-a/1-first/kep.yaml"] == kep("1", "First").encode()
    assert extracted == [f"{TOP}/{p}" for p in expected]
    assert problems == []
    assert gh.streams and gh.streams[0].closed


def test_github_source_end_to_end(sleeps):
    gh = FakeGitHub(make_tarball(TARBALL_FILES))
    counter = RequestCounter()
    with client_for(gh, counter=counter) as client:
        snap = load_snapshot("github:kubernetes/enhancements@master", Path("/nonexistent-cache"), client=client)
    assert snap.source == "github:kubernetes/enhancements@master"
    assert snap.revision == SHA
    assert [(k.number, k.title) for k in snap.all_keps()] == [(1, "First"), (2, "Second")]
    assert snap.prr == {1: ("keps/prod-readiness/sig-a/1.yaml",)}
    assert snap.problems == ()
    assert [str(r.url) for r in gh.requests] == [
        f"{API}/repos/kubernetes/enhancements/commits/master",
        f"{API}/repos/kubernetes/enhancements/tarball/{SHA}",
        f"https://codeload.example/kubernetes/enhancements/legacy.tar.gz/{SHA}",
    ]
    assert counter.count == 3  # request hooks fire for every hop, redirects included
    ref_request, tar_request, codeload_request = gh.requests
    assert ref_request.headers["Accept"] == "application/vnd.github.sha"
    assert ref_request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert ref_request.headers["User-Agent"] == USER_AGENT
    assert tar_request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert "Authorization" not in codeload_request.headers  # not leaked to another host
    assert sleeps.calls == []


def test_github_source_default_ref_is_head(sleeps):
    gh = FakeGitHub(make_tarball(TARBALL_FILES))
    with client_for(gh, token=None) as client:
        snap = load_snapshot("github:kubernetes/enhancements", Path("/nonexistent-cache"), client=client)
    assert snap.source == "github:kubernetes/enhancements@HEAD"
    assert str(gh.requests[0].url) == f"{API}/repos/kubernetes/enhancements/commits/HEAD"
    assert "Authorization" not in gh.requests[0].headers


def test_custom_api_url(sleeps):
    class Enterprise(FakeGitHub):
        def __call__(self, request):
            if request.url.host == "ghe.example":
                request.url = request.url.copy_with(host="api.github.com", path=request.url.path[len("/api/v3"):])
            return super().__call__(request)

    gh = Enterprise(make_tarball(TARBALL_FILES))
    with client_for(gh) as client:
        assert resolve_github_ref(client, "https://ghe.example/api/v3/", "kubernetes/enhancements", "master") == SHA


def test_unknown_ref_is_source_error_without_token(sleeps):
    gh = FakeGitHub(make_tarball(TARBALL_FILES))
    with client_for(gh, token=TOKEN) as client:
        with pytest.raises(SourceError) as info:
            load_snapshot("github:kubernetes/enhancements@nope", Path("/nonexistent-cache"), client=client)
    message = str(info.value)
    assert message == (f"GET {API}/repos/kubernetes/enhancements/commits/nope: HTTP 404, "
                       "could not resolve 'nope' to a commit")
    assert TOKEN not in message
    assert gh.requests[0].headers["Authorization"] == f"Bearer {TOKEN}"  # the token was really in play
    assert len(gh.requests) == 1
    assert sleeps.calls == []


def test_ref_answer_that_is_not_a_sha_is_source_error(sleeps):
    gh = FakeGitHub(sha="<html>not a sha</html>")
    with client_for(gh) as client:
        with pytest.raises(SourceError) as info:
            resolve_github_ref(client, API, "kubernetes/enhancements", "master")
    assert str(info.value) == (f"GET {API}/repos/kubernetes/enhancements/commits/master: HTTP 200, "
                               "could not resolve 'master' to a commit")


def test_ref_transport_failure_is_source_error_after_retries(sleeps):
    calls = []

    def handler(request):
        calls.append(request)
        raise httpx.ConnectError(f"cannot connect (token {TOKEN})", request=request)

    with client_for(handler) as client:
        with pytest.raises(SourceError) as info:
            resolve_github_ref(client, API, "kubernetes/enhancements", "master")
    assert str(info.value) == f"GET {API}/repos/kubernetes/enhancements/commits/master: ConnectError: cannot connect (token ***)"
    assert len(calls) == MAX_ATTEMPTS
    assert sleeps.calls == [2.0, 4.0, 8.0]


@pytest.mark.parametrize("status", [404, 500])
def test_tarball_http_error_is_source_error(sleeps, status):
    gh = FakeGitHub(tarball_status=status)
    with client_for(gh) as client:
        with pytest.raises(SourceError) as info:
            read_tarball(client, API, "kubernetes/enhancements", SHA)
    assert str(info.value) == f"GET {API}/repos/kubernetes/enhancements/tarball/{SHA}: HTTP {status}"
    assert TOKEN not in str(info.value)


def corrupt_deflate() -> bytes:
    data = bytearray(make_tarball({**TARBALL_FILES, "keps/sig-z/9-r/x.bin": random.Random(4).randbytes(20_000)}))
    data[len(data) // 2: len(data) // 2 + 64] = bytes(64)  # zlib.error inside the gzip member
    return bytes(data)


@pytest.mark.parametrize("body", [lambda: b"<html>this is not a tarball</html>" * 10, corrupt_deflate],
                         ids=["not-gzip", "corrupt-deflate"])
def test_tarball_that_is_not_gzip_is_source_error(sleeps, body):
    gh = FakeGitHub(body())
    with client_for(gh) as client:
        with pytest.raises(SourceError) as info:
            read_tarball(client, API, "kubernetes/enhancements", SHA)
    assert str(info.value).startswith(f"GET {API}/repos/kubernetes/enhancements/tarball/{SHA}: "
                                      "not a readable tar.gz archive (")


def test_truncated_tarball_is_source_error(sleeps):
    data = make_tarball({**TARBALL_FILES, "keps/sig-z/9-big/kep.yaml": random.Random(1).randbytes(50_000)})
    gh = FakeGitHub(data[: len(data) // 2])
    with client_for(gh) as client:
        with pytest.raises(SourceError) as info:
            read_tarball(client, API, "kubernetes/enhancements", SHA)
    assert "not a readable tar.gz archive" in str(info.value)


def test_connection_drop_mid_body_is_source_error(sleeps):
    data = make_tarball({**TARBALL_FILES, "keps/sig-z/9-big/other.bin": random.Random(2).randbytes(40_000)})
    gh = FakeGitHub(data, fail_after=2)
    with client_for(gh) as client:
        with pytest.raises(SourceError) as info:
            read_tarball(client, API, "kubernetes/enhancements", SHA)
    assert str(info.value) == (f"GET {API}/repos/kubernetes/enhancements/tarball/{SHA}: ReadError while reading "
                               "the body: connection reset while sending ***")


@pytest.mark.parametrize("name", ["/etc/passwd", f"{TOP}/../../etc/passwd", f"{TOP}/keps/../../x/kep.yaml", "../evil"])
def test_escaping_member_refuses_the_archive(sleeps, name):
    evil = file_info(name, b"root:x:0:0\n")
    gh = FakeGitHub(make_tarball(TARBALL_FILES, extra=[evil]))
    with client_for(gh) as client:
        with pytest.raises(SourceError) as info:
            read_tarball(client, API, "kubernetes/enhancements", SHA)
    assert str(info.value) == (f"GET {API}/repos/kubernetes/enhancements/tarball/{SHA}: archive member {name!r} "
                               "escapes the archive, refused")


def test_links_and_devices_under_keps_are_skipped_and_reported(sleeps):
    device = tarfile.TarInfo(f"{TOP}/keps/sig-a/5-fifo/kep.yaml")
    device.type = tarfile.FIFOTYPE
    extra = [
        link_info(f"{TOP}/keps/sig-a/3-link/kep.yaml", "../1-first/kep.yaml"),
        link_info(f"{TOP}/keps/sig-a/4-hard/kep.yaml", f"{TOP}/keps/sig-a/1-first/kep.yaml", tarfile.LNKTYPE),
        link_info(f"{TOP}/keps/sig-c", "sig-a"),  # a linked directory would hide KEPs silently
        link_info(f"{TOP}/keps/prod-readiness/sig-a/3.yaml", "1.yaml"),
        link_info(f"{TOP}/keps/sig-a/6-abs/kep.yaml", "/etc/passwd"),
        (device, None),
        link_info(f"{TOP}/docs-link", "keps"),  # outside keps/: ignored
    ]
    gh = FakeGitHub(make_tarball(TARBALL_FILES, extra=extra))
    with client_for(gh) as client:
        files, problems = read_tarball(client, API, "kubernetes/enhancements", SHA)
        snap = load_snapshot("github:kubernetes/enhancements@master", Path("/nonexistent-cache"), client=client)
    assert [p for p, _ in files] == [p for p in TARBALL_FILES if p.endswith("kep.yaml")
                                     or p.startswith("keps/prod-readiness/")]
    assert problems == [
        Problem("keps/sig-a/3-link/kep.yaml", "", "archive entry is a symbolic link, not a file; skipped"),
        Problem("keps/sig-a/4-hard/kep.yaml", "", "archive entry is a hard link, not a file; skipped"),
        Problem("keps/sig-c", "", "archive entry is a symbolic link, not a file; skipped"),
        Problem("keps/prod-readiness/sig-a/3.yaml", "", "archive entry is a symbolic link, not a file; skipped"),
        Problem("keps/sig-a/6-abs/kep.yaml", "", "archive entry is a symbolic link, not a file; skipped"),
        Problem("keps/sig-a/5-fifo/kep.yaml", "", "archive entry is a device or special file, not a file; skipped"),
    ]
    assert list(snap.keps) == [1, 2]
    assert snap.problems == tuple(sorted(problems))


def test_body_over_the_limit_is_refused(sleeps):
    data = make_tarball({**TARBALL_FILES, "keps/sig-z/9-noise/blob.bin": random.Random(3).randbytes(30_000)})
    assert len(data) > 20_000
    gh = FakeGitHub(data)
    with client_for(gh) as client:
        with pytest.raises(SourceError) as info:
            read_tarball(client, API, "kubernetes/enhancements", SHA, limit=20_000)
    assert str(info.value) == f"GET {API}/repos/kubernetes/enhancements/tarball/{SHA}: larger than 20000 bytes, refused"
    assert gh.streams[0].closed


def test_body_under_the_limit_is_accepted(sleeps):
    data = make_tarball(TARBALL_FILES)
    gh = FakeGitHub(data)
    with client_for(gh) as client:
        files, _ = read_tarball(client, API, "kubernetes/enhancements", SHA, limit=len(data))
    assert len(files) == 5


def test_metadata_that_unpacks_past_the_limit_is_refused(sleeps):
    bomb = b"title: x\n" + b"# padding\n" * 20_000  # ~200 kB that gzips to a few hundred bytes
    data = make_tarball({**TARBALL_FILES, "keps/sig-z/9-bomb/kep.yaml": bomb})
    assert len(data) < 20_000
    gh = FakeGitHub(data)
    with client_for(gh) as client:
        with pytest.raises(SourceError) as info:
            read_tarball(client, API, "kubernetes/enhancements", SHA, limit=20_000)
    assert str(info.value) == (f"GET {API}/repos/kubernetes/enhancements/tarball/{SHA}: metadata files larger than "
                               "20000 bytes once unpacked, refused")


def test_large_non_metadata_members_do_not_count_toward_the_unpacked_limit(sleeps):
    data = make_tarball({**TARBALL_FILES, "keps/sig-z/9-big/diagram.svg": b"<svg/>" * 50_000})
    gh = FakeGitHub(data)
    with client_for(gh) as client:
        files, _ = read_tarball(client, API, "kubernetes/enhancements", SHA, limit=20_000)
    assert len(files) == 5


def test_tarball_transient_502_is_retried(sleeps):
    gh = FakeGitHub(make_tarball(TARBALL_FILES))
    failures = [502]

    def handler(request):
        if request.url.host == "codeload.example" and failures:
            return httpx.Response(failures.pop(), text="bad gateway")
        return gh(request)

    with client_for(handler) as client:
        files, _ = read_tarball(client, API, "kubernetes/enhancements", SHA)
    assert len(files) == 5
    assert sleeps.calls == [2.0]


def test_github_source_through_respx(sleeps):
    respx = pytest.importorskip("respx")
    data = make_tarball(TARBALL_FILES)
    with respx.mock(assert_all_called=True) as router:
        ref = router.get(f"{API}/repos/o/r/commits/main").mock(return_value=httpx.Response(200, text=SHA + "\n"))
        router.get(f"{API}/repos/o/r/tarball/{SHA}").mock(return_value=httpx.Response(200, content=data))
        with make_client(TOKEN) as client:
            snap = load_snapshot("github:o/r@main", Path("/nonexistent-cache"), client=client)
    assert snap.revision == SHA
    assert list(snap.keps) == [1, 2]
    assert ref.calls.last.request.headers["Accept"] == "application/vnd.github.sha"


# =====================================================================================
# bot.http: send (retries), rate limits, redact
# =====================================================================================

def scripted(*responses):
    """A handler that plays ``responses`` in order (a Response, an exception class, or a status int)."""
    queue = list(responses)
    seen: list[httpx.Request] = []

    def handler(request):
        seen.append(request)
        item = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(item, type) and issubclass(item, Exception):
            raise item("boom", request=request)
        if isinstance(item, int):
            return httpx.Response(item, text=f"status {item}")
        return item

    handler.seen = seen
    return handler


def test_send_retries_502_then_succeeds():
    handler = scripted(502, httpx.Response(200, text="ok"))
    sleep = SleepRecorder()
    counter = RequestCounter()
    with client_for(handler, counter=counter) as client:
        response = send(client, "GET", "https://api.example/x", sleep=sleep)
    assert (response.status_code, response.text) == (200, "ok")
    assert sleep.calls == [2.0]
    assert len(handler.seen) == 2
    assert counter.count == 2


def test_send_backs_off_exponentially_and_returns_the_last_5xx():
    handler = scripted(503)
    sleep = SleepRecorder()
    with client_for(handler) as client:
        response = send(client, "GET", "https://api.example/x", sleep=sleep)
    assert response.status_code == 503
    assert response.text == "status 503"
    assert len(handler.seen) == MAX_ATTEMPTS == 4
    assert sleep.calls == [2.0, 4.0, 8.0]


def test_send_honours_retry_after_on_429():
    handler = scripted(httpx.Response(429, headers={"Retry-After": "7"}), httpx.Response(200, text="ok"))
    sleep = SleepRecorder()
    with client_for(handler) as client:
        response = send(client, "GET", "https://api.example/x", sleep=sleep)
    assert response.status_code == 200
    assert sleep.calls == [7.0]


def test_send_honours_rate_limit_reset_on_403(monkeypatch):
    monkeypatch.setattr(bot_http.time, "time", lambda: 1_000_000.0)
    limited = httpx.Response(403, headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1000045"})
    handler = scripted(limited, httpx.Response(200, text="ok"))
    sleep = SleepRecorder()
    with client_for(handler) as client:
        response = send(client, "GET", "https://api.example/x", sleep=sleep)
    assert response.status_code == 200
    assert sleep.calls == [45.0]


def test_send_gives_up_at_once_when_the_wait_is_too_long():
    handler = scripted(httpx.Response(429, headers={"Retry-After": "3600"}), 200)
    sleep = SleepRecorder()
    with client_for(handler) as client:
        response = send(client, "GET", "https://api.example/x", sleep=sleep)
    assert response.status_code == 429
    assert sleep.calls == []
    assert len(handler.seen) == 1


@pytest.mark.parametrize("status", [200, 301, 400, 401, 403, 404, 422])
def test_send_does_not_retry_other_statuses(status):
    handler = scripted(status, 200)
    sleep = SleepRecorder()
    with make_client(transport=httpx.MockTransport(handler), token=None) as client:
        client.follow_redirects = False
        response = send(client, "GET", "https://api.example/x", sleep=sleep)
    assert response.status_code == status
    assert sleep.calls == []
    assert len(handler.seen) == 1


def test_send_retries_transport_errors_then_raises():
    handler = scripted(httpx.ConnectError)
    sleep = SleepRecorder()
    with client_for(handler) as client:
        with pytest.raises(httpx.ConnectError):
            send(client, "GET", "https://api.example/x", sleep=sleep)
    assert len(handler.seen) == MAX_ATTEMPTS
    assert sleep.calls == [2.0, 4.0, 8.0]


def test_send_recovers_from_transport_errors():
    handler = scripted(httpx.ReadTimeout, httpx.ConnectError, httpx.Response(200, text="ok"))
    sleep = SleepRecorder()
    with client_for(handler) as client:
        assert send(client, "GET", "https://api.example/x", sleep=sleep).text == "ok"
    assert sleep.calls == [2.0, 4.0]


def test_send_passes_request_options_and_streams():
    handler = scripted(500, httpx.Response(200, stream=ChunkedStream(b"abcdef", chunk=2)))
    sleep = SleepRecorder()
    with client_for(handler) as client:
        response = send(client, "POST", "https://api.example/x", stream=True, sleep=sleep,
                        headers={"Accept": "text/plain"}, params={"q": "1"}, content=b"body")
        try:
            assert list(response.iter_bytes()) == [b"ab", b"cd", b"ef"]
        finally:
            response.close()
    first, second = handler.seen
    assert str(second.url) == "https://api.example/x?q=1"
    assert second.method == "POST"
    assert second.headers["Accept"] == "text/plain"
    assert second.headers["User-Agent"] == USER_AGENT
    assert second.content == b"body"
    assert sleep.calls == [2.0]


def test_make_client_headers_and_settings():
    with make_client(TOKEN) as client:
        assert client.headers["Authorization"] == f"Bearer {TOKEN}"
        assert client.headers["User-Agent"] == USER_AGENT
        assert client.follow_redirects is True
        assert client.timeout.read == bot_http.TIMEOUT_SECONDS
    with make_client() as client:
        assert "Authorization" not in client.headers
    assert USER_AGENT.startswith("kep-sync/")


@pytest.mark.parametrize(
    ("status", "headers", "expected"),
    [
        (429, {"Retry-After": "12"}, 12.0),
        (403, {"Retry-After": "0"}, 0.0),
        (429, {}, None),  # no usable wait: the caller's normal backoff
        (429, {"Retry-After": "Thu, 01 Jan 1970 00:17:10 GMT"}, 30.0),  # HTTP-date, now=1000
        (429, {"Retry-After": "Thu, 01 Jan 1970 00:10:00 GMT"}, 0.0),  # a past date
        (429, {"Retry-After": "Thu, 01 Jan 1970 00:17:10"}, 30.0),  # no zone: UTC
        (429, {"Retry-After": "-1"}, 0.0),
        (429, {"Retry-After": " 7 "}, 7.0),
        (429, {"Retry-After": "abc"}, None),
        (429, {"Retry-After": "1.5"}, None),
        (429, {"Retry-After": ""}, None),
        (429, {"Retry-After": "9" * 400}, 86400.0),  # capped, never inf
        (429, {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, 86400.0),
        (429, {"Retry-After": "abc", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1030"}, 30.0),
        (403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "9" * 400}, 86400.0),
        (403, {}, None),
        (403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1030"}, 30.0),
        (403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "900"}, 0.0),
        (403, {"X-RateLimit-Remaining": "3", "X-RateLimit-Reset": "1030"}, None),
        (429, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1100"}, 100.0),
        (200, {"Retry-After": "5"}, None),
        (503, {"Retry-After": "5"}, None),
    ],
)
def test_rate_limit_wait(status, headers, expected):
    assert rate_limit_wait(httpx.Response(status, headers=headers), now=1000.0) == expected


@pytest.mark.parametrize(("retry_after", "waits"), [
    ("-1", [0.0]),  # clamped: retry at once
    ("abc", [2.0]),  # unparseable = absent: the normal backoff, not a fixed minute
    ("1.5", [2.0]),
    ("0", [0.0]),
])
def test_send_waits_out_a_429_by_its_retry_after(retry_after, waits):
    answers = iter([httpx.Response(429, headers={"Retry-After": retry_after}), httpx.Response(200, text="ok")])
    client = make_client(transport=httpx.MockTransport(lambda request: next(answers)))
    slept = []
    assert bot_http.send(client, "GET", "https://h.test/a", sleep=slept.append).text == "ok"
    assert slept == waits


def test_send_returns_a_429_whose_wait_is_over_the_budget_at_once():
    answers = iter([httpx.Response(429, headers={"Retry-After": "9" * 400})])
    client = make_client(transport=httpx.MockTransport(lambda request: next(answers)))
    slept = []
    assert bot_http.send(client, "GET", "https://h.test/a", sleep=slept.append).status_code == 429
    assert slept == []


@pytest.mark.parametrize(("retry_after", "waits"), [("-1", [0.0]), ("abc", [2.0]), ("1.5", [2.0]),
                                                    ("Thu, 01 Jan 1970 00:00:00 GMT", [0.0])])
def test_github_calls_wait_out_a_429_by_its_retry_after(retry_after, waits):
    from github import GithubException

    from bot.publish.auth import call_with_retry

    answers = iter([GithubException(429, {"message": "slow down"}, {"retry-after": retry_after}), "done"])

    def call():
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    slept = []
    assert call_with_retry("list pulls", call, sleep=slept.append) == "done"
    assert slept == waits


@pytest.mark.parametrize(("headers", "message"), [
    ({"retry-after": "9" * 400}, "GitHub API: list pulls: HTTP 429 slow down (rate limited; the wait of 86400s is "
                                 "over the budget)"),
    ({"retry-after": "abc"}, "GitHub API: list pulls: HTTP 429 slow down (rate limited; still limited after "
                             "retrying)"),
])
def test_github_rate_limit_failures_say_why_in_readable_seconds(headers, message):
    from github import GithubException

    from bot.publish.auth import MAX_ATTEMPTS, GitHubApiError, call_with_retry

    calls = []

    def call():
        calls.append(1)
        raise GithubException(429, {"message": "slow down"}, headers)

    slept = []
    with pytest.raises(GitHubApiError) as info:
        call_with_retry("list pulls", call, sleep=slept.append)
    assert str(info.value) == message
    assert len(calls) == (1 if "86400" in message else MAX_ATTEMPTS)
    assert slept == ([] if "86400" in message else [2.0, 4.0, 8.0, 16.0])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"https://x-access-token:{TOKEN}@github.com/kubernetes/enhancements.git",
         "https://***@github.com/kubernetes/enhancements.git"),
        ("https://user@github.com/o/r", "https://***@github.com/o/r"),
        ("ssh://git@github.com/o/r.git", "ssh://***@github.com/o/r.git"),
        (f"token {TOKEN} leaked", "token *** leaked"),
        ("gho_abcdefghij1234 ghu_ABCDEFGHIJ ghs_0123456789 ghr_x_y_z_1234567", "*** *** *** ***"),
        ("github_pat_11AAAAAAA0_abcdefghijklmnopqrstuvwxyz end", "*** end"),
        ("ghp_short", "ghp_short"),
        ("https://github.com/kubernetes/enhancements", "https://github.com/kubernetes/enhancements"),
        ("file:///tmp/a@b/enh", "file:///tmp/a@b/enh"),
        ("mail me at someone@example.com", "mail me at someone@example.com"),
        ("https://u:SECRET@host/x.git?token=SECRET1234q", "https://***@host/x.git?token=***"),
        ("https://h/p?a=1&access_token=abc&b=2", "https://h/p?a=1&access_token=***&b=2"),
        ("https://h/p?private_token=x#frag", "https://h/p?private_token=***#frag"),
        ("GET https://h/p?password=hunter2;key=k1 failed", "GET https://h/p?password=***;key=*** failed"),
        ("https://blob.example/t.gz?sv=1&sig=a%2Bb&signature=zz'", "https://blob.example/t.gz?sv=1&sig=***&signature=***'"),
        ("https://h/p?TOKEN=upper&Key=mixed", "https://h/p?TOKEN=***&Key=***"),
        ("https://h/p?monkey=1&tokens=2&key_id=3&token=", "https://h/p?monkey=1&tokens=2&key_id=3&token="),
        ("token=bare-not-a-query", "token=bare-not-a-query"),
        ("", ""),
        ("https://bob:s3cr@t-pass@host/x", "https://***@host/x"),
        ("https://user:p@ss@w0rd@github.com/x", "https://***@github.com/x"),
        ("'https://a:b@c@h:9/r.git' and https://d:e@f@g?q=1#x end", "'https://***@h:9/r.git' and https://***@g?q=1#x end"),
        ("https://h/p@q/r then mail@x.org", "https://h/p@q/r then mail@x.org"),
        ("https://h?x=a@b and https://h#a@b", "https://h?x=a@b and https://h#a@b"),
        (f"fatal: unable to access 'https://bot:{TOKEN}@127.0.0.1:9/x/': Failed",
         "fatal: unable to access 'https://***@127.0.0.1:9/x/': Failed"),
    ],
)
def test_redact(text, expected):
    assert redact(text) == expected



# =====================================================================================
# breaker findings: spec validation, empty source
# =====================================================================================

@pytest.mark.parametrize(
    ("value", "ref"),
    [
        ("github:o/r@../../../../evil/path?x=1", "../../../../evil/path?x=1"),
        ("github:o/r@/abs", "/abs"), ("github:o/r@a b", "a b"), ("github:o/r@a#b", "a#b"),
        ("github:o/r@a%2e%2e", "a%2e%2e"), ("github:o/r@main\n", "main\n"), ("github:o/r@a\tb", "a\tb"),
        ("github:o/r@a..b", "a..b"), ("github:o/r@.hidden", ".hidden"), ("github:o/r@x/.y", "x/.y"),
        ("github:o/r@x.lock", "x.lock"), ("github:o/r@a//b", "a//b"), ("github:o/r@a/", "a/"),
        ("github:o/r@x.", "x."), ("github:o/r@@", "@"), ("github:o/r@a@{1}", "a@{1}"), ("github:o/r@a~1", "a~1"),
        ("github:o/r@a^", "a^"), ("github:o/r@a:b", "a:b"), ("github:o/r@a*", "a*"), ("github:o/r@a[b", "a[b"),
        ("github:o/r@a\\b", "a\\b"), ("github:o/r@a\x7fb", "a\x7fb"),
    ],
)
def test_github_spec_refuses_refs_that_are_not_git_ref_names(value, ref):
    with pytest.raises(UsageError) as info:
        parse_source(value)
    assert str(info.value) == f"enhancements (--enhancements) {value!r}: REF {ref!r} is not a valid git ref name"


@pytest.mark.parametrize("value", ["github:../..@x", "github:./r@main", "github:o/..", "github:../r"])
def test_github_spec_refuses_dot_owner_or_repo(value):
    with pytest.raises(UsageError) as info:
        parse_source(value)
    assert str(info.value) == f"enhancements (--enhancements) {value!r}: OWNER and REPO must not be '.' or '..'"


@pytest.mark.parametrize("ref", ["release-1.30", "v1.30.0-alpha.1", "feature/x.y", "users/a_b/c-d", "é", "HEAD", SHA])
def test_github_spec_accepts_real_ref_names(ref):
    assert parse_source(f"github:kubernetes/enhancements@{ref}") == Source("github", "kubernetes/enhancements", ref)


@pytest.mark.parametrize("value", ["", "  "])
def test_empty_sources_are_usage_errors(value):
    with pytest.raises(UsageError) as info:
        parse_source(value)
    assert str(info.value) == f"enhancements (--enhancements) {value!r}: empty"
    with pytest.raises(UsageError) as info:
        parse_github_spec(value, "--release-notes", "master")
    assert str(info.value) == f"--release-notes {value!r}: empty"


def test_github_urls_quote_segments_and_refuse_bad_refs(sleeps):
    assert github_url("https://ghe.example/api/v3/", "o/r", "commits", "feature/é") == (
        "https://ghe.example/api/v3/repos/o/r/commits/feature/%C3%A9")
    gh = FakeGitHub()
    with client_for(gh) as client:
        for repo, ref, message in [
            ("o/r", "../../../../evil/path?x=1",
             "GitHub repository 'o/r': REF '../../../../evil/path?x=1' is not a valid git ref name"),
            ("../..", "x", "GitHub repository '../..': expected OWNER/REPO"),
            ("o/r/x", "main", "GitHub repository 'o/r/x': expected OWNER/REPO"),
        ]:
            with pytest.raises(UsageError) as info:
                resolve_github_ref(client, API, repo, ref)
            assert str(info.value) == message
        with pytest.raises(UsageError):
            read_tarball(client, API, "o/r", "../x")
    assert gh.requests == []  # no token-bearing request left for another path


# =====================================================================================
# breaker findings: directory source reads regular files only
# =====================================================================================

def test_directory_source_reports_links_fifos_and_odd_entries_and_loads_the_rest(tmp_path):
    root = tmp_path / "enh"
    write_tree(root, UPSTREAM)
    outside = tmp_path / "outside"
    write_tree(outside, {"9-x/kep.yaml": kep("9", "Outside")})
    keps = root / "keps"
    (keps / "sig-d/3-fifo").mkdir(parents=True)
    os.mkfifo(keps / "sig-d/3-fifo/kep.yaml")  # opening it for reading would block forever
    (keps / "sig-d/4-zero").mkdir()
    os.symlink("/dev/zero", keps / "sig-d/4-zero/kep.yaml")  # reading it would never end
    (keps / "sig-d/5-dangling").mkdir()
    os.symlink("nope.yaml", keps / "sig-d/5-dangling/kep.yaml")
    (keps / "sig-d/6-out").mkdir()
    os.symlink(outside / "9-x/kep.yaml", keps / "sig-d/6-out/kep.yaml")
    os.symlink(outside / "9-x", keps / "sig-d/9-x")  # a linked KEP directory
    (keps / "sig-d/7-dir/kep.yaml").mkdir(parents=True)  # a directory named kep.yaml
    os.symlink("1.yaml", keps / "prod-readiness/sig-a/3.yaml")

    snap = load_snapshot(str(root), tmp_path / "cache")
    assert [(k.number, k.title) for k in snap.all_keps()] == [(1, "First"), (2, "Second")]
    assert snap.prr == {1: ("keps/prod-readiness/sig-a/1.yaml",)}
    assert snap.problems == (
        Problem("keps/prod-readiness/sig-a/3.yaml", "", "symbolic link; skipped"),
        Problem("keps/sig-d/3-fifo/kep.yaml", "", "not a regular file (FIFO); skipped"),
        Problem("keps/sig-d/4-zero/kep.yaml", "", "symbolic link; skipped"),
        Problem("keps/sig-d/5-dangling/kep.yaml", "", "symbolic link; skipped"),
        Problem("keps/sig-d/6-out/kep.yaml", "", "symbolic link; skipped"),
        Problem("keps/sig-d/7-dir/kep.yaml", "", "a directory, not a file; skipped"),
        Problem("keps/sig-d/9-x", "", "symbolic link; skipped"),
    )
    assert [p for p, _ in read_directory(root)] == [
        "keps/NNNN-kep-template/kep.yaml", "keps/prod-readiness/sig-a/1.yaml",
        "keps/sig-a/1-first/kep.yaml", "keps/sig-b/2-second/kep.yaml",
    ]


def test_a_linked_keps_directory_is_not_followed(tmp_path):
    write_tree(tmp_path / "real", UPSTREAM)
    (tmp_path / "enh").mkdir()
    os.symlink(tmp_path / "real/keps", tmp_path / "enh/keps")
    assert scan_directory(tmp_path / "enh") == ([], [Problem("keps", "", "symbolic link; skipped")])


def test_read_regular_file_refuses_a_fifo_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    assert read_regular_file(str(tmp_path / "fifo"), 100) == (b"", "not a regular file (FIFO); skipped")
    os.symlink("fifo", tmp_path / "link")
    assert read_regular_file(str(tmp_path / "link"), 100) == (b"", "symbolic link; skipped")


def test_unreadable_files_and_directories_are_reported(tmp_path, monkeypatch):
    root = tmp_path / "enh"
    write_tree(root, {**UPSTREAM, "keps/sig-c/3-locked/kep.yaml": kep("3"), "keps/sig-d/4-hidden/kep.yaml": kep("4")})
    locked_file, locked_dir = root / "keps/sig-c/3-locked/kep.yaml", root / "keps/sig-d"
    os.chmod(locked_file, 0)
    os.chmod(locked_dir, 0)
    try:
        if os.geteuid() == 0:  # root reads anything: make the same calls fail as they would for a user
            real_open, real_scandir = os.open, os.scandir

            def denied(path):
                raise PermissionError(13, "Permission denied", os.fspath(path))

            monkeypatch.setattr(os, "open", lambda p, *a, **k: denied(p) if p == str(locked_file) else real_open(p, *a, **k))
            monkeypatch.setattr(os, "scandir", lambda p=".": denied(p) if p == str(locked_dir) else real_scandir(p))
        snap = load_snapshot(str(root), tmp_path / "cache")
    finally:
        os.chmod(locked_dir, 0o755)
        os.chmod(locked_file, 0o644)
    assert list(snap.keps) == [1, 2]
    assert snap.problems == (
        Problem("keps/sig-c/3-locked/kep.yaml", "", "cannot be read (Permission denied); skipped"),
        Problem("keps/sig-d/", "", "directory cannot be read (Permission denied); skipped"),
    )
    assert snap.problems[1].path.rsplit("/", 2)[-2] == "sig-d"


def test_directory_files_over_the_cap_are_reported(tmp_path):
    write_tree(tmp_path, {"keps/sig-a/1-a/kep.yaml": "x" * 100, "keps/sig-a/2-b/kep.yaml": "y" * 101})
    files, problems = scan_directory(tmp_path, max_file_bytes=100)
    assert files == [("keps/sig-a/1-a/kep.yaml", b"x" * 100)]
    assert problems == [Problem("keps/sig-a/2-b/kep.yaml", "", "larger than 100 bytes; skipped")]
    assert enh.MAX_FILE_BYTES == 4 * 1024 * 1024


# =====================================================================================
# breaker findings: git source reports links and submodules
# =====================================================================================

def test_git_tree_reports_linked_directories_submodules_and_big_blobs(tmp_path):
    up = tmp_path / "up"
    make_repo(up, {**UPSTREAM, "keps/sig-c/3-big/kep.yaml": kep("3") + "#" * 200})
    os.symlink("sig-a", up / "keps/sig-link")
    git(up, "add", "-A")
    git(up, "update-index", "--add", "--cacheinfo", f"160000,{SHA},keps/sig-c/4-sub")
    git(up, "commit", "-q", "-m", "link and submodule")
    sha = git(up, "rev-parse", "HEAD")
    files, problems = scan_git_tree(up, sha, max_file_bytes=200)
    assert [p for p, _ in files] == WANTED
    assert problems == [
        Problem("keps/sig-c/3-big/kep.yaml", "", "larger than 200 bytes; skipped"),
        Problem("keps/sig-c/4-sub", "", "submodule, not a file; skipped"),
        Problem("keps/sig-link", "", "symbolic link; skipped"),
    ]
    assert read_git_tree(up, sha) == files + [("keps/sig-c/3-big/kep.yaml", (kep("3") + "#" * 200).encode())]


# =====================================================================================
# breaker findings: path names that are not UTF-8
# =====================================================================================

BAD = "keps/sig-x/9002-\ufffd\ufffd/kep.yaml"


def assert_json_safe(snap) -> None:
    report = {"source": snap.source, "problems": [p._asdict() for p in snap.all_problems()],
              "keps": [k.path for k in snap.all_keps()]}
    json.dumps(report, ensure_ascii=False).encode("utf-8")  # what --report writes; must not raise


def test_non_utf8_directory_names_become_text(tmp_path):
    write_tree(tmp_path, UPSTREAM)
    bad_dir = os.path.join(os.fsencode(tmp_path), b"keps/sig-x/9002-\xff\xfe")
    os.makedirs(bad_dir)
    with open(os.path.join(bad_dir, b"kep.yaml"), "wb") as fh:
        fh.write(kep("9002", "Bytes").encode())
    snap = load_snapshot(str(tmp_path), tmp_path / "cache")
    assert [k.path for k in snap.keps[9002]] == [BAD]
    assert snap.problems == (Problem(BAD, "", "path is not valid UTF-8 (bad bytes shown as U+FFFD)"),)
    assert_json_safe(snap)


def test_non_utf8_directory_of_the_source_itself_is_text(tmp_path):
    root = os.path.join(os.fsencode(tmp_path), b"enh-\xff")
    os.makedirs(os.path.join(root, b"keps/sig-a/1-a"))
    with open(os.path.join(root, b"keps/sig-a/1-a/kep.yaml"), "wb") as fh:
        fh.write(kep("1").encode())
    snap = load_snapshot(os.fsdecode(root), tmp_path / "cache")
    assert snap.source == f"{tmp_path}/enh-\ufffd"
    assert_json_safe(snap)


def test_non_utf8_git_paths_become_text(tmp_path):
    up = tmp_path / "up"
    make_repo(up, UPSTREAM)
    bad_dir = os.path.join(os.fsencode(up), b"keps/sig-x/9002-\xff\xfe")
    os.makedirs(bad_dir)
    with open(os.path.join(bad_dir, b"kep.yaml"), "wb") as fh:
        fh.write(kep("9002", "Bytes").encode())
    sha = commit(up, {}, "bad name")
    assert "9002-" in git_source.run_git(up, "ls-tree", "-r", "--name-only", "-z", sha)  # decodes with U+FFFD, no crash
    snap = load_snapshot(f"file://{up}", tmp_path / "cache")
    assert snap.revision == sha
    assert [k.path for k in snap.keps[9002]] == [BAD]
    assert snap.problems == (Problem(BAD, "", "path is not valid UTF-8 (bad bytes shown as U+FFFD)"),)
    assert_json_safe(snap)


def test_non_utf8_tarball_member_names_become_text(sleeps):
    bad = file_info(f"{TOP}/keps/sig-x/9002-\udcff\udcfe/kep.yaml", kep("9002", "Bytes").encode())
    gh = FakeGitHub(make_tarball(TARBALL_FILES, extra=[bad]))
    with client_for(gh) as client:
        snap = load_snapshot("github:kubernetes/enhancements@master", Path("/nonexistent-cache"), client=client)
    assert [k.path for k in snap.keps[9002]] == [BAD]
    assert snap.problems == (Problem(BAD, "", "path is not valid UTF-8 (bad bytes shown as U+FFFD)"),)
    assert_json_safe(snap)


@pytest.mark.parametrize(("name", "expected"), [
    (b"a\xffb", ("a\ufffdb", True)), ("a\udcffb", ("a\ufffdb", True)), ("a\ud800b", ("a\ufffd\ufffd\ufffdb", True)),
    ("ok-é", ("ok-é", False)), (b"ok-\xc3\xa9", ("ok-é", False)), ("lit-\ufffd", ("lit-\ufffd", False)),
])
def test_decode_path(name, expected):
    assert decode_path(name) == expected


# =====================================================================================
# breaker findings: gzip bomb, per-file cap in the tarball
# =====================================================================================

def test_decompressed_size_is_capped(sleeps):
    data = make_tarball({**TARBALL_FILES, "keps/sig-z/9-zeros/blob.bin": bytes(300_000)})
    unpacked = len(gzip.decompress(data))
    assert len(data) < 5_000 < 300_000 < unpacked
    gh = FakeGitHub(data)
    with client_for(gh) as client:
        files, _ = read_tarball(client, API, "kubernetes/enhancements", SHA, max_unpacked=unpacked)
        assert len(files) == 5
        with pytest.raises(SourceError) as info:
            read_tarball(client, API, "kubernetes/enhancements", SHA, max_unpacked=unpacked - 1)
    assert str(info.value) == (f"GET {API}/repos/kubernetes/enhancements/tarball/{SHA}: larger than "
                               f"{unpacked - 1} bytes once decompressed, refused")
    assert all(s.closed for s in gh.streams)
    assert enh.MAX_UNPACKED_BYTES == 1024 ** 3


def test_tarball_metadata_files_over_the_per_file_cap_are_reported(sleeps):
    files = {"keps/sig-a/1-a/kep.yaml": "x" * 100, "keps/sig-a/2-b/kep.yaml": "y" * 101}
    gh = FakeGitHub(make_tarball(files))
    with client_for(gh) as client:
        got, problems = read_tarball(client, API, "kubernetes/enhancements", SHA, max_file_bytes=100)
    assert got == [("keps/sig-a/1-a/kep.yaml", b"x" * 100)]
    assert problems == [Problem("keps/sig-a/2-b/kep.yaml", "", "larger than 100 bytes; skipped")]


# =====================================================================================
# breaker findings: bounded bodies and overall deadlines
# =====================================================================================

class FakeClock:
    """A monotonic clock that moves only when told (``advance`` seconds per :meth:`tick`)."""

    def __init__(self, advance: float) -> None:
        self.now, self.advance, self.ticks = 0.0, advance, 0

    def __call__(self) -> float:
        return self.now

    def tick(self) -> None:
        self.now += self.advance
        self.ticks += 1


def endless(chunk: bytes, clock: FakeClock | None = None, served: list | None = None):
    """A response body that never ends (each chunk moves ``clock`` on)."""
    def gen():
        while True:
            if clock is not None:
                clock.tick()
            if served is not None:
                served.append(len(chunk))
            yield chunk
    return gen()


def test_ref_lookup_reads_at_most_max_bytes_of_an_endless_body(sleeps):
    served: list[int] = []
    handler = lambda request: httpx.Response(200, content=endless(b"0" * 1000, served=served))  # noqa: E731
    with client_for(handler) as client:
        with pytest.raises(SourceError) as info:
            resolve_github_ref(client, API, "o/r", "main")
        assert sum(served) <= 5000
        with pytest.raises(SourceError) as info2:
            probe_github_ref(client, API, "o/r", "main", max_bytes=100)
    assert str(info.value) == f"GET {API}/repos/o/r/commits/main: larger than 4096 bytes, refused"
    assert str(info2.value) == f"GET {API}/repos/o/r/commits/main: larger than 100 bytes, refused"
    assert enh.MAX_REF_BYTES == 4096


def test_ref_probe_never_sends_or_keeps_a_non_ascii_etag(sleeps):
    seen = []

    def handler(request):
        seen.append(request.headers.get("if-none-match"))
        return httpx.Response(200, content=b"a" * 40, headers=[(b"ETag", '"é1"'.encode())])

    with client_for(handler) as client:
        got = probe_github_ref(client, API, "o/r", "main", etag='"é1"')
    assert (got.revision, got.etag, seen) == ("a" * 40, "", [None])


def test_ref_lookup_error_status_does_not_read_an_endless_body(sleeps):
    served: list[int] = []
    handler = lambda request: httpx.Response(404, content=endless(b"x" * 1000, served=served))  # noqa: E731
    with client_for(handler) as client:
        with pytest.raises(SourceError) as info:
            resolve_github_ref(client, API, "o/r", "main")
    assert str(info.value) == f"GET {API}/repos/o/r/commits/main: HTTP 404, could not resolve 'main' to a commit"
    assert sum(served) <= 1000


def test_ref_lookup_has_an_overall_deadline(sleeps):
    clock = FakeClock(advance=20.0)  # one byte every 20 s: never a read timeout
    handler = lambda request: httpx.Response(200, content=endless(b"0", clock))  # noqa: E731
    with client_for(handler) as client:
        with pytest.raises(SourceError) as info:
            probe_github_ref(client, API, "o/r", "main", clock=clock)
    assert str(info.value) == f"GET {API}/repos/o/r/commits/main: not finished within 30 s, aborted"
    assert clock.ticks == 2
    assert enh.MAX_REF_SECONDS == 30.0


def test_tarball_download_has_an_overall_deadline(sleeps):
    data = make_tarball(TARBALL_FILES)
    clock = FakeClock(advance=1.0)

    def handler(request):
        def drip():
            for i in range(len(data)):
                clock.tick()
                yield data[i:i + 1]
        return httpx.Response(200, content=drip())

    with client_for(handler) as client:
        with pytest.raises(SourceError) as info:
            read_tarball(client, API, "kubernetes/enhancements", SHA, seconds=50, clock=clock)
    assert str(info.value) == f"GET {API}/repos/kubernetes/enhancements/tarball/{SHA}: not finished within 50 s, aborted"
    assert clock.ticks == 51
    assert enh.MAX_DOWNLOAD_SECONDS == 300.0


@contextlib.contextmanager
def drip_server(body: bytes, interval: float = 0.02):
    """A loopback HTTP server that sends headers, then ``body`` one byte every ``interval`` s."""
    stop = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                for i in range(len(body)):
                    if stop.is_set():
                        break
                    self.wfile.write(body[i:i + 1])
                    self.wfile.flush()
                    stop.wait(interval)
            except OSError:
                pass

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        stop.set()
        server.shutdown()
        server.server_close()


def test_dripping_servers_are_cut_off_over_loopback(sleeps):
    with drip_server(SHA.encode()) as url, make_client(TOKEN) as client:
        with pytest.raises(SourceError) as info:
            probe_github_ref(client, url, "o/r", "main", seconds=0.1)
        assert str(info.value) == f"GET {url}/repos/o/r/commits/main: not finished within 0.1 s, aborted"
    with drip_server(make_tarball(TARBALL_FILES)) as url, make_client(TOKEN) as client:
        with pytest.raises(SourceError) as info:
            read_tarball(client, url, "o/r", SHA, seconds=0.1)
        assert str(info.value) == f"GET {url}/repos/o/r/tarball/{SHA}: not finished within 0.1 s, aborted"


def test_cat_file_batch_gives_blobs_in_order_and_none_for_missing_or_not_a_blob(tmp_path):
    up = tmp_path / "up"
    make_repo(up, UPSTREAM)
    blob = git(up, "rev-parse", "HEAD:keps/sig-a/1-first/kep.yaml")
    tree = git(up, "rev-parse", "HEAD:keps")
    missing = "f" * 40
    assert git_source.cat_file_batch(up, [blob, missing, tree, blob]) == [
        kep("1", "First").encode(), None, None, kep("1", "First").encode()]
    assert git_source.cat_file_batch(up, []) == []


def test_try_git_is_none_when_git_fails(tmp_path):
    up = tmp_path / "up"
    sha = make_repo(up, UPSTREAM)
    assert git_source.try_git(up, "rev-parse", "--verify", "-q", "HEAD") == f"{sha}\n"
    assert git_source.try_git(up, "rev-parse", "--verify", "-q", "no-such-branch") is None
    assert git_source.try_git(tmp_path / "not-a-repo", "rev-parse", "HEAD") is None
