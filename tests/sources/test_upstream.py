"""bot.sources.upstream: a github: source read incrementally against the loopback fake GitHub, with its cache
by commit in cache_dir (exact requests, exact cache contents; every compare status GitHub documents gives the
snapshot a full read gives)."""

from __future__ import annotations

import json

import pytest

from bot.sources.upstream_cache import blob_id
from tests.fakecompare import CompareStyle
from tests.sources.upstreamcases import ENH, FILES, K1, K2, REPO, entry_dir, full, kep, read, trees


def test_first_read_is_the_tarball_and_fills_the_cache_with_the_tree(fake, tmp_path):
    snap, up, sent = read(fake, tmp_path / "c")
    head, tree, keps = trees(fake)
    assert sent == [
        ("GET", f"{ENH}/commits/main", 200),
        ("GET", f"{ENH}/git/commits/{head}", 200),
        ("GET", f"{ENH}/tarball/{head}", 302),
        ("GET", f"/_codeload/{REPO}/legacy.tar.gz/{head}", 200),
    ]  # the listing of the tree from the tarball itself: it hashes to the commit's tree
    assert (up.read, up.fetched, up.counter.count) == ("tarball", 0, 4)
    assert snap == full(fake, tmp_path)
    root = entry_dir(tmp_path / "c", fake)
    assert sorted(p.name for p in root.iterdir()) == [f"files-{head}.json"]
    stored = json.loads((root / f"files-{head}.json").read_text(encoding="utf-8"))
    assert stored == {
        "version": 2,
        "source": f"{fake.url} {REPO}",
        "revision": head,
        "tree": tree,
        "top": [["README.md", "100644", blob_id(b"# enhancements\n")]],
        "keps": [
            ["keps/prod-readiness/sig-a/1.yaml", "100644", blob_id(b"kep-number: 1\n")],
            ["keps/sig-a/1-first/README.md", "100644", blob_id(b"# First\n")],
            [K1, "100644", blob_id(kep("1").encode())],
            [K2, "100644", blob_id(kep("2", "beta").encode())],
        ],
        "texts": [[K1, kep("1")], [K2, kep("2", "beta")]],
        "large": [],
    }


def test_no_change_is_the_ref_and_the_commits_tree(fake, tmp_path):
    first, _, _ = read(fake, tmp_path / "c")
    head, _, _ = trees(fake)
    snap, up, sent = read(fake, tmp_path / "c")
    assert sent == [("GET", f"{ENH}/commits/main", 200), ("GET", f"{ENH}/git/commits/{head}", 200)]
    assert (up.read, up.probe().not_modified, snap) == ("cache", False, first)
    assert up.snapshot() is snap and up.counter.count == 2  # reused within the process: no second probe


def test_the_ref_is_conditional_only_on_what_the_callers_state_keeps(fake, tmp_path):
    _, first, _ = read(fake, tmp_path / "c")
    head, _, _ = trees(fake)
    etag = first.probe().etag
    snap, up, sent = read(fake, tmp_path / "c", known=(etag, head))
    assert sent == [("GET", f"{ENH}/commits/main", 304), ("GET", f"{ENH}/git/commits/{head}", 200)]
    assert (up.probe().not_modified, up.probe().revision, snap.revision) == (True, head, head)
    _, up, sent = read(fake, tmp_path / "c", known=(etag, "not a revision"))
    assert sent[0] == ("GET", f"{ENH}/commits/main", 200)  # no revision to pair the ETag with: not sent


def test_one_changed_kep_yaml_is_a_compare_the_root_tree_and_one_blob(fake, tmp_path):
    read(fake, tmp_path / "c")
    base = fake.branch_sha(REPO, "main")
    fake.commit_files(REPO, "main", {K1: kep("1", "beta"), "keps/sig-a/1-first/README.md": "# First, changed\n"})
    head, tree, _ = trees(fake)
    snap, up, sent = read(fake, tmp_path / "c")
    assert sent == [
        ("GET", f"{ENH}/commits/main", 200),
        ("GET", f"{ENH}/git/commits/{head}", 200),
        ("GET", f"{ENH}/compare/{base}...{head}", 200),
        ("GET", f"{ENH}/git/trees/{tree}", 200),
        ("GET", f"{ENH}/git/blobs/{blob_id(kep('1', 'beta').encode())}", 200),
    ]
    assert (up.read, up.fetched) == ("compare", 1)
    assert snap == full(fake, tmp_path)
    assert [k.stage for k in snap.all_keps()] == ["beta", "beta"]
    assert read(fake, tmp_path / "c")[1].read == "cache"  # the new entry holds on the next run


COPY, MOVED = "keps/sig-c/3-third/kep.yaml", "keps/sig-c/2-second/kep.yaml"


@pytest.mark.parametrize(
    "style, reads",
    [
        (CompareStyle(), "compare"),
        (CompareStyle(renames=False), "compare"),
        (CompareStyle(copies=True), "compare"),
        (CompareStyle(copies=True, unchanged=(K1, "README.md")), "compare"),
        (CompareStyle(limit=3), "compare"),  # fewer than GitHub's cap: still all of them here
    ],
)
def test_every_documented_status_gives_the_snapshot_a_full_read_gives(fake, tmp_path, style, reads):
    read(fake, tmp_path / "c")
    fake.compare_style = style
    fake.commit_files(
        REPO,
        "main",
        {
            K2: None,
            MOVED: kep("2", "beta"),  # renamed (or removed + added)
            COPY: kep("1"),  # a copy of K1, which stays (copied, or added)
            "keps/sig-a/1-first/README.md": None,
            "keps/prod-readiness/sig-a/3.yaml": "kep-number: 3\n",
        },
    )
    snap, up, sent = read(fake, tmp_path / "c")
    statuses = {e["status"] for x in fake.exchanges if "/compare/" in x.path for e in x.body["files"]}
    assert (
        statuses
        == {
            CompareStyle(): {"added", "removed", "renamed"},
            CompareStyle(renames=False): {"added", "removed"},
            CompareStyle(copies=True): {"added", "removed", "renamed", "copied"},
            CompareStyle(copies=True, unchanged=(K1, "README.md")): {
                "added",
                "removed",
                "renamed",
                "copied",
                "unchanged",
            },
            CompareStyle(limit=3): {"added", "removed", "renamed"},
        }[style]
    )
    if style.limit == 3:  # three of five files listed: the listing cannot hash to the tree, read the tarball
        assert up.read == "tarball"
    else:
        assert (up.read, up.fetched, [s for _, p, s in sent if "/git/blobs/" in p]) == (reads, 0, [])
    assert snap == full(fake, tmp_path)
    assert sorted(k.path for k in snap.all_keps()) == sorted([K1, COPY, MOVED])


def test_300_listed_files_read_the_tarball(fake, tmp_path):
    read(fake, tmp_path / "c")
    fake.commit_files(REPO, "main", {K1: kep("1", "stable"), **{f"docs/{i:03}.md": f"{i}\n" for i in range(299)}})
    snap, up, sent = read(fake, tmp_path / "c")
    assert [p.split("/")[4] for _, p, _ in sent if p.startswith(ENH)] == [
        "commits",
        "git",
        "compare",
        "tarball",
    ]
    assert (up.read, snap) == ("tarball", full(fake, tmp_path))


def test_a_type_change_a_link_and_an_executable_equal_a_full_read(fake, tmp_path):
    read(fake, tmp_path / "c")
    fake.commit_files(
        REPO,
        "main",
        {K1: "../../sig-b/2-second/kep.yaml", "keps/sig-a/4-four/kep.yaml": kep("4"), "keps/sig-a/x.sh": "#!/bin/sh\n"},
        modes={K1: "120000", "keps/sig-a/4-four/kep.yaml": "100755", "keps/sig-a/x.sh": "100755"},
    )
    snap, up, _ = read(fake, tmp_path / "c")
    assert up.read == "tarball"  # "changed" under keps/: its new type is not in the answer
    assert snap == full(fake, tmp_path)
    assert [p.message for p in snap.problems if p.path == K1] == [
        "archive entry is a symbolic link, not a file; skipped"
    ]
    assert read(fake, tmp_path / "c")[0] == snap  # the entry written with the link holds
    fake.commit_files(REPO, "main", {"keps/sig-a/4-four/kep.yaml": kep("4", "beta")})
    snap, up, _ = read(fake, tmp_path / "c")
    assert (up.read, snap) == ("compare", full(fake, tmp_path))  # the executable keeps its mode


def test_a_force_push_and_a_failing_blob_read_the_tarball(fake, tmp_path):
    read(fake, tmp_path / "c")
    fake.seed_repo(REPO, {**FILES, K1: kep("1", "beta")})  # history rewritten: the base is no ancestor
    snap, up, sent = read(fake, tmp_path / "c")
    assert [p.split("/")[4] for _, p, _ in sent if p.startswith(ENH)][:4] == ["commits", "git", "compare", "tarball"]
    assert (up.read, snap) == ("tarball", full(fake, tmp_path))
    fake.commit_files(REPO, "main", {K1: kep("1", "stable")})
    fake.fail_next("GET", r"/git/blobs/", 404)
    snap, up, sent = read(fake, tmp_path / "c")
    assert [(p.split("/")[4], s) for _, p, s in sent][:6] == [
        ("commits", 200),
        ("git", 200),
        ("compare", 200),
        ("git", 200),
        ("git", 404),
        ("tarball", 302),
    ]
    assert (up.read, snap) == ("tarball", full(fake, tmp_path))


def test_without_the_git_database_api_every_run_reads_the_tarball_and_says_so(fake, tmp_path):
    fake.fail_next("GET", r"/git/commits/", 404, times=2)
    first, up, _ = read(fake, tmp_path / "c")
    second, again, _ = read(fake, tmp_path / "c")
    assert (up.read, again.read, first == second) == ("tarball", "tarball", True)
    head = fake.branch_sha(REPO, "main")
    assert [p.message for p in first.problems] == [
        f"upstream cache not written: the tree of commit {head} cannot be read (GET {fake.url}{ENH}/git/commits/"
        f"{head}: HTTP 404); the next run reads the tarball again"
    ]
    assert not entry_dir(tmp_path / "c", fake).exists()


def test_provenance_answers_are_cached_by_commit_and_carried_over(fake, tmp_path):
    paths = [K1, K2]
    _, up, _ = read(fake, tmp_path / "c")
    fake.reset_counters()
    first, sent = up.last_commits(paths, 30)
    assert (sent, len(fake.requests), sorted(first)) == (2, 2, paths)
    _, again, _ = read(fake, tmp_path / "c")
    fake.reset_counters()
    assert again.last_commits(paths, 30) == (first, 0) and fake.requests == []
    fake.compare_style = CompareStyle(copies=True)
    head = fake.commit_files(REPO, "main", {K1: kep("1", "beta"), COPY: kep("2", "beta")}, message="Beta (#12)")
    _, moved, _ = read(fake, tmp_path / "c")
    assert moved.read == "compare"
    fake.reset_counters()
    answers, sent = moved.last_commits([*paths, COPY], 30)
    assert (sent, [p for _, p, _ in fake.requests]) == (2, [f"{ENH}/commits", f"{ENH}/commits"])
    assert (answers[K1].sha, answers[K1].pr, answers[K2]) == (head, 12, first[K2])  # the copy's source kept
    assert (answers[COPY].sha, answers[COPY].pr) == (head, 12)


def test_targets_share_one_upstream_reader_and_its_cache(fake, tmp_path):
    from bot.commands.inputs import Inputs
    from bot.config import Config

    config = Config.model_validate(
        {"enhancements": f"github:{REPO}@main", "cache_dir": str(tmp_path / "c"), "github": {"api_url": fake.url}}
    )
    head, _, _ = trees(fake)
    for run, expected in (
        (
            1,
            [
                f"{ENH}/commits/main",
                f"{ENH}/git/commits/{head}",
                f"{ENH}/tarball/{head}",
                f"/_codeload/{REPO}/legacy.tar.gz/{head}",
                f"{ENH}/commits",
            ],
        ),
        (2, [f"{ENH}/commits/main", f"{ENH}/git/commits/{head}"]),
    ):
        fake.reset_counters()
        shared = Inputs(config)
        assert shared.upstream() is shared.upstream()
        for _target in range(3):  # each target asks; the process reads once
            loader, _ = shared.provenance()
            history = loader({K1: ["stage"]}, [K1])
        assert ([p for _, p, _ in fake.requests], history.kind, sorted(history.last)) == (expected, "github", [K1]), run


def test_a_merge_commit_answer_whose_subject_is_the_pull_request_title_is_reused(fake, tmp_path):
    fake.commit_files(
        REPO, "main", {K1: kep("1", "beta")}, message="Merge pull request #77 from someone/branch\n\nMove 1 to beta"
    )
    _, up, _ = read(fake, tmp_path / "c")
    fake.reset_counters()
    first, sent = up.last_commits([K1], 30)
    assert (sent, first[K1].subject, first[K1].pr) == (1, "Move 1 to beta", 77)
    _, again, _ = read(fake, tmp_path / "c")
    fake.reset_counters()
    assert again.last_commits([K1], 30) == (first, 0) and fake.requests == []


def test_a_kep_yaml_over_the_cap_is_skipped_alike_by_every_read(fake, tmp_path):
    from bot.sources.localfs import MAX_FILE_BYTES

    big = kep("1") + "#" * MAX_FILE_BYTES
    fake.commit_files(REPO, "main", {K1: big})
    first, up, _ = read(fake, tmp_path / "c")
    assert (up.read, first) == ("tarball", full(fake, tmp_path))
    assert [(p.path, p.message) for p in first.problems] == [(K1, f"larger than {MAX_FILE_BYTES} bytes; skipped")]
    snap, up, sent = read(fake, tmp_path / "c")
    assert (up.read, snap, [s for _, p, s in sent if "/git/blobs/" in p]) == ("cache", first, [200])  # checked
    fake.commit_files(REPO, "main", {K2: kep("2", "stable")})
    snap, up, _ = read(fake, tmp_path / "c")
    assert (up.read, up.fetched, snap) == ("compare", 2, full(fake, tmp_path))


def test_a_submodule_makes_the_tree_listing_come_from_github(fake, tmp_path):
    fake.commit_files(
        REPO,
        "main",
        {"keps/sig-a/vendor": "0123456789abcdef0123456789abcdef01234567"},
        modes={"keps/sig-a/vendor": "160000"},
    )
    head, tree, keps = trees(fake)
    first, up, sent = read(fake, tmp_path / "c")
    assert [p for _, p, _ in sent][-2:] == [f"{ENH}/git/trees/{tree}", f"{ENH}/git/trees/{keps}"]  # an empty folder
    assert (up.read, first) == ("tarball", full(fake, tmp_path))
    snap, up, sent = read(fake, tmp_path / "c")
    assert (snap, up.read) == (first, "cache")
    assert sent == [("GET", f"{ENH}/commits/main", 200), ("GET", f"{ENH}/git/commits/{head}", 200)]
