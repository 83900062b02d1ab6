"""A git repository, bare repository or bundle as the enhancements source: clones into the cache, reads commits
not the work tree, reports links and submodules (bot/sources/git.py; real repositories in ``tmp_path``)."""

from __future__ import annotations

import os

import pytest

import bot.sources.git as git_source
from bot.errors import SourceError
from bot.model.kep import Problem
from bot.sources.enhancements import (
    load_snapshot,
    read_git_tree,
    scan_git_tree,
    sync_git_cache,
)
from tests.gitutil import commit, git, make_repo
from tests.sourcesutil import (
    SHA,
    TOKEN,
    UPSTREAM,
    WANTED,
    cache_repos,
    kep,
)

pytestmark = pytest.mark.usefixtures("_isolated_git")


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

    second = commit(
        up, {"keps/sig-c/3-third/kep.yaml": kep("3", "Third"), "keps/sig-b/2-second/kep.yaml": None}, "add 3, drop 2"
    )
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


@pytest.mark.parametrize(
    ("default_branch", "bundle_branch"),
    [("master", "main"), ("main", "master"), ("master", "master"), ("main", "main")],
)
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
    expected = {
        p: (c.encode() if isinstance(c, str) else c)
        for p, c in files.items()
        if p in WANTED or p.startswith("keps/sig-c/")
    }
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


# -- git source reports links and submodules --------------------


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


def test_cat_file_batch_gives_blobs_in_order_and_none_for_missing_or_not_a_blob(tmp_path):
    up = tmp_path / "up"
    make_repo(up, UPSTREAM)
    blob = git(up, "rev-parse", "HEAD:keps/sig-a/1-first/kep.yaml")
    tree = git(up, "rev-parse", "HEAD:keps")
    missing = "f" * 40
    assert git_source.cat_file_batch(up, [blob, missing, tree, blob]) == [
        kep("1", "First").encode(),
        None,
        None,
        kep("1", "First").encode(),
    ]
    assert git_source.cat_file_batch(up, []) == []


def test_try_git_is_none_when_git_fails(tmp_path):
    up = tmp_path / "up"
    sha = make_repo(up, UPSTREAM)
    assert git_source.try_git(up, "rev-parse", "--verify", "-q", "HEAD") == f"{sha}\n"
    assert git_source.try_git(up, "rev-parse", "--verify", "-q", "no-such-branch") is None
    assert git_source.try_git(tmp_path / "not-a-repo", "rev-parse", "HEAD") is None
