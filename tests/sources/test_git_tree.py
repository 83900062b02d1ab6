"""bot.sources.git_tree: tree ids computed from a listing equal git's own, for every kind of entry and the name
orders git's sort is particular about; what cannot be a tree is refused."""

from __future__ import annotations

import os

import pytest

from bot.sources.git_tree import blob_id, root_id, subtree_id, tree_id
from tests.gitutil import git, make_repo


def listing(repo, rev: str = "HEAD") -> dict[str, tuple[str, str]]:
    """``{path: (mode, id)}`` of every entry below ``keps/`` that is not a tree, as ``git ls-tree -r`` gives it."""
    out = {}
    for line in git(repo, "-c", "core.quotepath=off", "ls-tree", "-r", rev, "--", "keps").splitlines():
        meta, path = line.split("\t", 1)
        mode, _, sha = meta.split()
        out[path] = (mode, sha)
    return out


def test_the_tree_ids_are_gits_own(tmp_path):
    files = {
        "README.md": "# enhancements\n",
        "keps/sig-a/1-x/kep.yaml": "title: X\n",
        "keps/sig-a/1-x/README.md": "# X\n",
        "keps/sig-a/1-x.md": "a file named like the directory, sorted before it\n",
        "keps/sig-a/1-x-y/kep.yaml": "title: XY\n",
        "keps/sig-a/1-x/img/a.png": "png\n",
        "keps/sig-b/2-ü/kep.yaml": "title: Ü\n",
        "keps/prod-readiness/sig-a/1.yaml": "kep-number: 1\n",
    }
    repo = tmp_path / "up"
    make_repo(repo, files)
    os.symlink("kep.yaml", repo / "keps/sig-a/1-x/link.yaml")
    (repo / "keps/sig-a/1-x/run.sh").write_text("#!/bin/sh\n")
    (repo / "keps/sig-a/1-x/run.sh").chmod(0o755)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "link and executable")
    found = listing(repo)
    assert found["keps/sig-a/1-x/link.yaml"] == ("120000", blob_id(b"kep.yaml"))
    assert found["keps/sig-a/1-x/run.sh"][0] == "100755"
    assert subtree_id(found, "keps") == git(repo, "rev-parse", "HEAD:keps")
    top = {"README.md": ("100644", blob_id(b"# enhancements\n"))}
    assert root_id(top, subtree_id(found, "keps")) == git(repo, "rev-parse", "HEAD^{tree}")
    assert blob_id(b"title: X\n") == git(repo, "rev-parse", "HEAD:keps/sig-a/1-x/kep.yaml")


def test_a_submodule_entry_hashes_as_git_writes_it(tmp_path):
    sub = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "up"
    make_repo(repo, {"keps/sig-a/1-x/kep.yaml": "title: X\n"})
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{sub},keps/sig-a/vendor")
    tree = git(repo, "write-tree")
    found = listing(repo, tree)
    assert found["keps/sig-a/vendor"] == ("160000", sub)
    assert subtree_id(found, "keps") == git(repo, "rev-parse", f"{tree}:keps")


def test_what_cannot_be_a_tree_is_refused():
    sha = blob_id(b"x")
    assert subtree_id({}, "keps") is None
    for bad in (
        {"keps/a": ("100664", sha)},  # a mode git does not write
        {"docs/a": ("100644", sha)},  # not below keps/
        {"keps/a": ("100644", "HEAD")},
        {"keps/a//b": ("100644", sha)},
    ):
        with pytest.raises(ValueError):
            subtree_id(bad, "keps")
    with pytest.raises(ValueError):
        tree_id([("100644", "a", sha), ("100644", "a", sha)])


def test_a_git_archive_lists_back_to_its_tree(tmp_path):
    from bot.sources.git_tree import listing_id
    from bot.sources.tarball import ArchiveListing, read_local_tarball

    repo = tmp_path / "up"
    make_repo(repo, {"README.md": "# e\n", "keps/sig-a/1-x/kep.yaml": "title: X\n", "docs/a/b.md": "b\n"})
    os.symlink("1-x/kep.yaml", repo / "keps/sig-a/link.yaml")
    (repo / "run.sh").write_text("#!/bin/sh\n")
    (repo / "run.sh").chmod(0o755)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "link and executable")
    git(repo, "archive", "--format=tar.gz", "--prefix=o-r-1234567/", "-o", str(tmp_path / "a.tar.gz"), "HEAD")
    listing = ArchiveListing()
    files, problems, _ = read_local_tarball(tmp_path / "a.tar.gz", listing=listing)
    assert (files, [p.message for p in problems]) == (
        [("keps/sig-a/1-x/kep.yaml", b"title: X\n")],
        ["archive entry is a symbolic link, not a file; skipped"],
    )
    assert listing.usable and listing_id(listing.entries) == git(repo, "rev-parse", "HEAD^{tree}")
    assert listing.entries["run.sh"][0] == "100755"
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},keps/sub")
    git(repo, "commit", "-qm", "a submodule")
    git(repo, "archive", "--format=tar.gz", "--prefix=o-r-1234567/", "-o", str(tmp_path / "b.tar.gz"), "HEAD")
    listing = ArchiveListing()
    read_local_tarball(tmp_path / "b.tar.gz", listing=listing)
    assert listing.usable is False  # git archive writes the submodule as an empty folder: its commit is not there
