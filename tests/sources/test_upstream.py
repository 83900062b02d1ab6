"""bot.sources.upstream: a github: source read incrementally against the loopback fake GitHub, with its cache
by commit in cache_dir (exact requests, exact cache contents; a bad or foreign entry is never trusted)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.http import RequestCounter
from bot.model.kep import Problem
from bot.sources.enhancements import load_snapshot
from bot.sources.upstream import GitHubUpstream
from bot.sources.upstream_cache import UpstreamCache, blob_id
from tests.fakegithub import FakeGitHub

REPO = "o/enh"
ENH = "/repos/o/enh"


def kep(number: str, stage: str = "alpha") -> str:
    return f'title: KEP {number}\nkep-number: "{number}"\nstatus: implementable\nstage: {stage}\n'


FILES = {
    "README.md": "# enhancements\n",
    "keps/sig-a/1-first/kep.yaml": kep("1"),
    "keps/sig-a/1-first/README.md": "# First\n",
    "keps/sig-b/2-second/kep.yaml": kep("2", "beta"),
    "keps/prod-readiness/sig-a/1.yaml": "kep-number: 1\n",
}


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken-upstream")
    with FakeGitHub() as gh:
        gh.seed_repo(REPO, FILES)
        yield gh


def reader(fake: FakeGitHub, cache: Path, repo: str = REPO) -> GitHubUpstream:
    return GitHubUpstream(repo, "main", cache, api_url=fake.url, token="t0ken-upstream", counter=RequestCounter())


def read(fake: FakeGitHub, cache: Path, repo: str = REPO):
    """``(snapshot, reader, [(method, path, status)])`` of one new reader's snapshot."""
    fake.reset_counters()
    up = reader(fake, cache, repo)
    snap = up.snapshot()
    return snap, up, list(fake.requests)


def full(fake: FakeGitHub, tmp_path: Path):
    """The snapshot a plain read (the tarball, no cache) gives now."""
    from bot.http import make_client

    with make_client("t0ken-upstream") as client:
        return load_snapshot(f"github:{REPO}@main", tmp_path / "unused", api_url=fake.url, client=client)


def entry_dir(cache: Path, fake: FakeGitHub, repo: str = REPO) -> Path:
    return UpstreamCache(cache, f"{fake.url} {repo}", []).root


def test_first_read_is_the_tarball_and_fills_the_cache(fake, tmp_path):
    snap, up, sent = read(fake, tmp_path / "c")
    head = fake.branch_sha(REPO, "main")
    assert sent == [
        ("GET", f"{ENH}/commits/main", 200),
        ("GET", f"{ENH}/tarball/{head}", 302),
        ("GET", f"/_codeload/{REPO}/legacy.tar.gz/{head}", 200),
    ]
    assert (up.read, up.fetched, up.counter.count) == ("tarball", 0, 3)
    assert snap == full(fake, tmp_path)
    root = entry_dir(tmp_path / "c", fake)
    assert sorted(p.name for p in root.iterdir()) == sorted([f"files-{head}.json", up.cache._ref_path("main").name])
    stored = json.loads((root / f"files-{head}.json").read_text(encoding="utf-8"))
    assert stored == {
        "version": 1,
        "source": f"{fake.url} {REPO}",
        "revision": head,
        "problems": [],
        "files": [
            ["keps/prod-readiness/sig-a/1.yaml", blob_id(b"kep-number: 1\n"), ""],
            ["keps/sig-a/1-first/kep.yaml", blob_id(kep("1").encode()), kep("1")],
            ["keps/sig-b/2-second/kep.yaml", blob_id(kep("2", "beta").encode()), kep("2", "beta")],
        ],
    }
    ref = json.loads(up.cache._ref_path("main").read_text(encoding="utf-8"))
    assert (ref["ref"], ref["revision"], ref["etag"].startswith('"')) == ("main", head, True)


def test_no_change_is_one_conditional_request(fake, tmp_path):
    first, _, _ = read(fake, tmp_path / "c")
    snap, up, sent = read(fake, tmp_path / "c")
    assert sent == [("GET", f"{ENH}/commits/main", 304)]
    assert (up.read, up.probe().not_modified, snap) == ("cache", True, first)
    assert up.snapshot() is snap and up.counter.count == 1  # reused within the process: no second probe


def test_one_changed_kep_yaml_is_a_compare_and_one_blob(fake, tmp_path):
    read(fake, tmp_path / "c")
    base = fake.branch_sha(REPO, "main")
    head = fake.commit_files(
        REPO,
        "main",
        {"keps/sig-a/1-first/kep.yaml": kep("1", "beta"), "keps/sig-a/1-first/README.md": "# First, changed\n"},
    )
    snap, up, sent = read(fake, tmp_path / "c")
    blob = blob_id(kep("1", "beta").encode())
    assert sent == [
        ("GET", f"{ENH}/commits/main", 200),
        ("GET", f"{ENH}/compare/{base}...{head}", 200),
        ("GET", f"{ENH}/git/blobs/{blob}", 200),
    ]
    assert (up.read, up.fetched) == ("compare", 1)
    assert snap == full(fake, tmp_path)
    assert [k.stage for k in snap.all_keps()] == ["beta", "beta"]


def test_added_removed_and_renamed_files_equal_a_full_read(fake, tmp_path):
    read(fake, tmp_path / "c")
    fake.commit_files(
        REPO,
        "main",
        {
            "keps/sig-b/2-second/kep.yaml": None,
            "keps/sig-c/2-second/kep.yaml": kep("2"),
            "keps/sig-a/3-third/kep.yaml": kep("3"),
            "keps/sig-a/1-first/kep.yaml": None,
            "keps/prod-readiness/sig-a/3.yaml": "kep-number: 3\n",
        },
    )
    snap, up, _ = read(fake, tmp_path / "c")
    assert (up.read, up.fetched) == ("compare", 2)
    assert snap == full(fake, tmp_path)
    assert [k.path for k in snap.all_keps()] == ["keps/sig-c/2-second/kep.yaml", "keps/sig-a/3-third/kep.yaml"]
    assert snap.prr == {1: ("keps/prod-readiness/sig-a/1.yaml",), 3: ("keps/prod-readiness/sig-a/3.yaml",)}


def test_only_two_revisions_are_kept(fake, tmp_path):
    read(fake, tmp_path / "c")
    heads = [
        fake.commit_files(REPO, "main", {"keps/sig-a/1-first/kep.yaml": kep("1", stage)})
        for stage in ("beta", "stable")
    ]
    fake.repos[REPO]["refs"]["refs/heads/main"] = heads[0]
    read(fake, tmp_path / "c")
    fake.repos[REPO]["refs"]["refs/heads/main"] = heads[1]
    read(fake, tmp_path / "c")
    root = entry_dir(tmp_path / "c", fake)
    assert sorted(p.name for p in root.glob("files-*.json")) == sorted(f"files-{h}.json" for h in heads)


@pytest.mark.parametrize(
    "damage, why",
    [
        (lambda text: "{not json", "not JSON"),
        (lambda text: text.replace('"version":1', '"version":7'), "not a version 1 entry"),
        (
            lambda text: text.replace("stage: beta", "stage: stable"),
            "keps/sig-b/2-second/kep.yaml: its text does not match blob",
        ),
        (
            lambda text: text.replace('"files":[', '"files":[["../../etc/passwd","' + "0" * 40 + '",""],'),
            "files: ['../../etc/passwd', ",
        ),
    ],
)
def test_a_corrupt_entry_is_ignored_with_a_problem_and_read_again(fake, tmp_path, damage, why):
    first, _, _ = read(fake, tmp_path / "c")
    head = fake.branch_sha(REPO, "main")
    path = entry_dir(tmp_path / "c", fake) / f"files-{head}.json"
    path.write_text(damage(path.read_text(encoding="utf-8")), encoding="utf-8")
    snap, up, sent = read(fake, tmp_path / "c")
    assert sent == [
        ("GET", f"{ENH}/commits/main", 304),
        ("GET", f"{ENH}/tarball/{head}", 302),
        ("GET", f"/_codeload/{REPO}/legacy.tar.gz/{head}", 200),
    ]
    assert up.read == "tarball"
    [problem] = [p for p in snap.problems if p.path == str(path)]
    assert problem.message.startswith(f"upstream cache entry ignored: {why}")
    assert problem.message.endswith("; read from upstream instead")
    assert snap._replace(problems=tuple(p for p in snap.problems if p != problem)) == first
    assert read(fake, tmp_path / "c")[0] == first  # written again whole: trusted on the next run


def test_an_entry_of_another_source_is_ignored_and_never_reused(fake, tmp_path):
    read(fake, tmp_path / "c")
    head = fake.branch_sha(REPO, "main")
    fake.seed_repo("o/fork", {**FILES, "keps/sig-a/1-first/kep.yaml": kep("1", "stable")})
    fork_head = fake.branch_sha("o/fork", "main")
    snap, up, sent = read(fake, tmp_path / "c", "o/fork")  # same cache_dir, another source: nothing reused
    assert sent == [
        ("GET", "/repos/o/fork/commits/main", 200),
        ("GET", f"/repos/o/fork/tarball/{fork_head}", 302),
        ("GET", f"/_codeload/o/fork/legacy.tar.gz/{fork_head}", 200),
    ]
    assert [k.stage for k in snap.all_keps()] == ["stable", "beta"]
    ours = entry_dir(tmp_path / "c", fake) / f"files-{head}.json"
    foreign = entry_dir(tmp_path / "c", fake, "o/fork") / f"files-{fork_head}.json"
    ours.write_bytes(foreign.read_bytes().replace(fork_head.encode(), head.encode()))  # copied over, renamed
    snap, up, _ = read(fake, tmp_path / "c")
    assert (
        Problem(str(ours), "", "upstream cache entry ignored: an entry of another source; read from upstream instead")
        in snap.problems
    )
    assert (up.read, [k.stage for k in snap.all_keps()]) == ("tarball", ["alpha", "beta"])


def test_a_compare_that_is_not_ahead_or_a_blob_that_fails_reads_the_tarball(fake, tmp_path):
    read(fake, tmp_path / "c")
    fake.seed_repo(REPO, {**FILES, "keps/sig-a/1-first/kep.yaml": kep("1", "beta")})  # history rewritten
    snap, up, sent = read(fake, tmp_path / "c")
    assert [p.split("/")[4] for _, p, _ in sent] == ["commits", "compare", "tarball", "legacy.tar.gz"]
    assert (up.read, snap) == ("tarball", full(fake, tmp_path))
    fake.commit_files(REPO, "main", {"keps/sig-a/1-first/kep.yaml": kep("1", "stable")})
    fake.fail_next("GET", r"/git/blobs/", 404)
    snap, up, sent = read(fake, tmp_path / "c")
    assert [(p.split("/")[4], s) for _, p, s in sent] == [
        ("commits", 200),
        ("compare", 200),
        ("git", 404),
        ("tarball", 302),
        ("legacy.tar.gz", 200),
    ]
    assert (up.read, snap) == ("tarball", full(fake, tmp_path))


def test_provenance_answers_are_cached_by_commit_and_carried_over(fake, tmp_path):
    paths = ["keps/sig-a/1-first/kep.yaml", "keps/sig-b/2-second/kep.yaml"]
    _, up, _ = read(fake, tmp_path / "c")
    fake.reset_counters()
    first, sent = up.last_commits(paths, 30)
    assert (sent, len(fake.requests), sorted(first)) == (2, 2, paths)
    _, again, _ = read(fake, tmp_path / "c")
    fake.reset_counters()
    assert again.last_commits(paths, 30) == (first, 0) and fake.requests == []
    head = fake.commit_files(REPO, "main", {paths[0]: kep("1", "beta")}, message="Move 1 to beta (#12)")
    _, moved, _ = read(fake, tmp_path / "c")
    fake.reset_counters()
    answers, sent = moved.last_commits(paths, 30)
    assert (sent, [p for _, p, _ in fake.requests]) == (1, [f"{ENH}/commits"])
    assert (answers[paths[0]].sha, answers[paths[0]].pr, answers[paths[1]]) == (head, 12, first[paths[1]])


def test_compare_file_lists_renames_limits_and_bad_entries():
    from bot.sources.upstream import Listed, listed_changes

    a, b = "a" * 40, "b" * 40
    entries = [
        {
            "filename": "keps/sig-a/1-new/kep.yaml",
            "previous_filename": "keps/sig-a/1-old/kep.yaml",
            "status": "renamed",
            "sha": a,
        },
        {"filename": "keps/prod-readiness/sig-a/1.yaml", "status": "added", "sha": b},
        {"filename": "keps/sig-a/2-x/kep.yaml", "status": "removed", "sha": b},
        {"filename": "keps/sig-a/1-new/README.md", "status": "modified", "sha": None},
    ]
    assert listed_changes(entries) == Listed(
        frozenset({"keps/sig-a/1-old/kep.yaml", "keps/sig-a/2-x/kep.yaml"}),
        {"keps/prod-readiness/sig-a/1.yaml": b},
        {"keps/sig-a/1-new/kep.yaml": a},
        frozenset(e["filename"] for e in entries) | {"keps/sig-a/1-old/kep.yaml"},
    )
    many = [{"filename": f"docs/{i}.md", "status": "added", "sha": a} for i in range(300)]
    keps = [{"filename": f"keps/s/{i}-k/kep.yaml", "status": "modified", "sha": a} for i in range(41)]
    assert [listed_changes(x) for x in (many, keps, keps[:40][:1] + [{"filename": 1}], "files", None)] == [None] * 5
    assert listed_changes([{"filename": "keps/s/1-k/kep.yaml", "status": "modified", "sha": "HEAD"}]) is None
    assert len(listed_changes(keps[:40]).keps) == 40


def test_targets_share_one_upstream_reader_and_its_cache(fake, tmp_path):
    from bot.config import Config
    from bot.service.multi import SharedSources

    config = Config.model_validate(
        {"enhancements": f"github:{REPO}@main", "cache_dir": str(tmp_path / "c"), "github": {"api_url": fake.url}}
    )
    path = "keps/sig-a/1-first/kep.yaml"
    head = fake.branch_sha(REPO, "main")
    for run, expected in (
        (
            1,
            [
                f"{ENH}/commits/main",
                f"{ENH}/tarball/{head}",
                f"/_codeload/{REPO}/legacy.tar.gz/{head}",
                f"{ENH}/commits",
            ],
        ),
        (2, [f"{ENH}/commits/main"]),
    ):
        fake.reset_counters()
        shared = SharedSources(config)
        assert shared.upstream() is shared.upstream()
        for _target in range(3):  # each target asks; the process reads once
            loader, _ = shared.history()
            history = loader({path: ["stage"]}, [path])
        assert ([p for _, p, _ in fake.requests], history.kind, sorted(history.last)) == (expected, "github", [path]), (
            run
        )


def test_a_merge_commit_answer_whose_subject_is_the_pull_request_title_is_reused(fake, tmp_path):
    path = "keps/sig-a/1-first/kep.yaml"
    fake.commit_files(
        REPO, "main", {path: kep("1", "beta")}, message="Merge pull request #77 from someone/branch\n\nMove 1 to beta"
    )
    _, up, _ = read(fake, tmp_path / "c")
    fake.reset_counters()
    first, sent = up.last_commits([path], 30)
    assert (sent, first[path].subject, first[path].pr) == (1, "Move 1 to beta", 77)
    _, again, _ = read(fake, tmp_path / "c")
    fake.reset_counters()
    assert again.last_commits([path], 30) == (first, 0) and fake.requests == []
