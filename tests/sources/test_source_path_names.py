"""Path names that are not UTF-8 become text in every source kind (``decode_path``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import bot.sources.git as git_source
from bot.model.kep import Problem
from bot.sources.enhancements import (
    load_snapshot,
)
from bot.sources.localfs import decode_path
from tests.gitutil import commit, make_repo
from tests.sourcesutil import (
    TARBALL_FILES,
    TOP,
    UPSTREAM,
    FakeGitHub,
    client_for,
    file_info,
    kep,
    make_tarball,
    write_tree,
)

pytestmark = pytest.mark.usefixtures("_isolated_git")


# -- path names that are not UTF-8 --------------------

BAD = "keps/sig-x/9002-\ufffd\ufffd/kep.yaml"


def assert_json_safe(snap) -> None:
    report = {
        "source": snap.source,
        "problems": [p._asdict() for p in snap.all_problems()],
        "keps": [k.path for k in snap.all_keps()],
    }
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


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (b"a\xffb", ("a\ufffdb", True)),
        ("a\udcffb", ("a\ufffdb", True)),
        ("a\ud800b", ("a\ufffd\ufffd\ufffdb", True)),
        ("ok-é", ("ok-é", False)),
        (b"ok-\xc3\xa9", ("ok-é", False)),
        ("lit-\ufffd", ("lit-\ufffd", False)),
    ],
)
def test_decode_path(name, expected):
    assert decode_path(name) == expected
