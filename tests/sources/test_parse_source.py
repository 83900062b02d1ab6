"""Source values (``parse_source``, ``github:owner/repo@ref``) and their usage errors
(bot/sources/enhancements.py)."""

from __future__ import annotations

import pytest

from bot.errors import KepSyncError, SourceError, UsageError
from bot.sources import parse_github_spec
from bot.sources.enhancements import (
    Source,
    github_url,
    load_snapshot,
    parse_source,
    read_tarball,
    resolve_github_ref,
)
from tests.gitutil import git, make_repo
from tests.sourcesutil import (
    API,
    SHA,
    FakeGitHub,
    client_for,
    kep,
)

pytestmark = pytest.mark.usefixtures("_isolated_git")


# -- parse_source --------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("github:kubernetes/enhancements@master", Source("github", "kubernetes/enhancements", "master")),
        ("github:kubernetes/enhancements", Source("github", "kubernetes/enhancements", "HEAD")),
        ("github:k8s.io/enh_ance-ments@v1.30", Source("github", "k8s.io/enh_ance-ments", "v1.30")),
        ("github:o/r@release/1.30", Source("github", "o/r", "release/1.30")),
        ("github:o/r@0123456789abcdef0123456789abcdef01234567", Source("github", "o/r", SHA)),
        (
            "https://github.com/kubernetes/enhancements.git",
            Source("git", "https://github.com/kubernetes/enhancements.git"),
        ),
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
    [
        "github:kubernetes",
        "github:o/r@",
        "github:o/r/x",
        "github:",
        "github:o r/x",
        "github:/r@main",
        "github:o/r/../x@main",
        "github:o\n/r@main",
    ],
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
    value = {
        "missing": str(tmp_path / "nope"),
        "empty-dir": str(tmp_path / "empty-dir"),
        "ftp-ish": "ftp://example.invalid/enh",
    }[name]
    with pytest.raises(UsageError) as info:
        parse_source(value)
    assert str(info.value) == (
        f"enhancements (--enhancements) {value!r}: not a directory with keps/, a .tar.gz "
        "snapshot, a git repository, a bundle, a URL or github:OWNER/REPO@REF"
    )


def test_usage_and_source_errors_share_the_root():
    assert issubclass(UsageError, KepSyncError)
    assert issubclass(SourceError, KepSyncError)


def test_load_snapshot_unknown_form_is_usage_error(tmp_path):
    with pytest.raises(UsageError):
        load_snapshot(str(tmp_path / "nope"), tmp_path / "cache")


# -- spec validation, empty source --------------------


@pytest.mark.parametrize(
    ("value", "ref"),
    [
        ("github:o/r@../../../../evil/path?x=1", "../../../../evil/path?x=1"),
        ("github:o/r@/abs", "/abs"),
        ("github:o/r@a b", "a b"),
        ("github:o/r@a#b", "a#b"),
        ("github:o/r@a%2e%2e", "a%2e%2e"),
        ("github:o/r@main\n", "main\n"),
        ("github:o/r@a\tb", "a\tb"),
        ("github:o/r@a..b", "a..b"),
        ("github:o/r@.hidden", ".hidden"),
        ("github:o/r@x/.y", "x/.y"),
        ("github:o/r@x.lock", "x.lock"),
        ("github:o/r@a//b", "a//b"),
        ("github:o/r@a/", "a/"),
        ("github:o/r@x.", "x."),
        ("github:o/r@@", "@"),
        ("github:o/r@a@{1}", "a@{1}"),
        ("github:o/r@a~1", "a~1"),
        ("github:o/r@a^", "a^"),
        ("github:o/r@a:b", "a:b"),
        ("github:o/r@a*", "a*"),
        ("github:o/r@a[b", "a[b"),
        ("github:o/r@a\\b", "a\\b"),
        ("github:o/r@a\x7fb", "a\x7fb"),
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
        "https://ghe.example/api/v3/repos/o/r/commits/feature/%C3%A9"
    )
    gh = FakeGitHub()
    with client_for(gh) as client:
        for repo, ref, message in [
            (
                "o/r",
                "../../../../evil/path?x=1",
                "GitHub repository 'o/r': REF '../../../../evil/path?x=1' is not a valid git ref name",
            ),
            ("../..", "x", "GitHub repository '../..': expected OWNER/REPO"),
            ("o/r/x", "main", "GitHub repository 'o/r/x': expected OWNER/REPO"),
        ]:
            with pytest.raises(UsageError) as info:
                resolve_github_ref(client, API, repo, ref)
            assert str(info.value) == message
        with pytest.raises(UsageError):
            read_tarball(client, API, "o/r", "../x")
    assert gh.requests == []  # no token-bearing request left for another path
