"""A local directory of KEPs as the enhancements source: metadata files only, links, FIFOs, unreadable and
oversized files reported (bot/sources/localfs.py)."""

from __future__ import annotations

import os

import pytest

import bot.sources.github_tarball as enh
from bot.model.kep import Problem
from bot.sources.enhancements import (
    load_snapshot,
    read_directory,
)
from bot.sources.localfs import read_regular_file, scan_directory
from tests.gitutil import git, make_repo
from tests.sourcesutil import (
    UPSTREAM,
    kep,
    write_tree,
)

pytestmark = pytest.mark.usefixtures("_isolated_git")


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
    assert snap.problems == (
        Problem("keps/sig-c/3-broken/kep.yaml", "", "not valid YAML at line 2: did not find expected ',' or ']'"),
    )


# -- directory source reads regular files only --------------------


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
        "keps/NNNN-kep-template/kep.yaml",
        "keps/prod-readiness/sig-a/1.yaml",
        "keps/sig-a/1-first/kep.yaml",
        "keps/sig-b/2-second/kep.yaml",
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

            monkeypatch.setattr(
                os, "open", lambda p, *a, **k: denied(p) if p == str(locked_file) else real_open(p, *a, **k)
            )
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
