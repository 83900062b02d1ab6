"""bot.sources.upstream_cache: a cache entry is a hint, checked on every use against the commit's tree id GitHub
gives in the same run; an entry edited in any way (consistently too), corrupt, foreign or of an older version
is reported, never used; no credential of the API URL reaches a cache file."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from bot.model.kep import Problem
from bot.sources.localfs import MAX_FILE_BYTES
from bot.sources.upstream_cache import UpstreamCache, blob_id
from tests.sources.upstreamcases import ENH, FILES, K1, K2, REPO, entry_dir, full, kep, read, reader, trees


def edit(path: Path, change) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def set_text(data: dict, path: str, text: str, listing: bool = True) -> None:
    """Give ``path`` the kep.yaml ``text``, its blob id recomputed in the listing (unless ``listing`` is False)."""
    data["texts"] = [[p, text if p == path else t] for p, t in data["texts"]]
    if listing:
        data["keps"] = [[p, m, blob_id(text.encode()) if p == path else s] for p, m, s in data["keps"]]


def drop_row(data: dict, path: str) -> None:
    data["texts"] = [r for r in data["texts"] if r[0] != path]
    data["keps"] = [r for r in data["keps"] if r[0] != path]


EDITS = {
    # the breaker's kind: a text changed with its blob id recomputed, another KEP's rows deleted
    "consistent": (
        lambda d: (set_text(d, K2, kep("2", "stable")), drop_row(d, K1)),
        "its listing of keps/ does not hash to tree {tree} of commit {head}",
    ),
    "text only": (lambda d: set_text(d, K2, kep("2", "stable"), listing=False), f"{K2}: its text is not blob {{k2}}"),
    "text deleted": (lambda d: d.update(texts=[r for r in d["texts"] if r[0] != K1]), f"{K1}: missing"),
    "said too large": (
        lambda d: d.update(texts=[r for r in d["texts"] if r[0] != K1], large=[K1]),
        f"{K1}: not larger than {MAX_FILE_BYTES} bytes",
    ),
    "another root": (lambda d: d.update(top=[["README.md", "100644", "0" * 40]]), "its listing of keps/ does not hash"),
    "another tree": (lambda d: d.update(tree="0" * 40), "its listing of keps/ does not hash"),
}


@pytest.mark.parametrize("name", sorted(EDITS))
def test_an_edited_entry_is_reported_dropped_and_read_again(fake, tmp_path, name):
    first, _, _ = read(fake, tmp_path / "c")
    head, tree, _ = trees(fake)
    path = entry_dir(tmp_path / "c", fake) / f"files-{head}.json"
    change, why = EDITS[name]
    edit(path, change)
    snap, up, sent = read(fake, tmp_path / "c")
    assert up.read == "tarball"
    tarball = [f"{ENH}/tarball/{head}", f"/_codeload/{REPO}/legacy.tar.gz/{head}"]
    assert [p for _, p, _ in sent if "/git/blobs/" not in p][2:4] == tarball  # a blob: the too-large claim checked
    [problem] = [p for p in snap.problems if p.path == str(path)]
    prefix = "upstream cache entry ignored: " + why.format(tree=tree, head=head, k2=blob_id(kep("2", "beta").encode()))
    assert problem.message.startswith(prefix) and problem.message.endswith("; read from upstream instead")
    assert snap._replace(problems=tuple(p for p in snap.problems if p != problem)) == first == full(fake, tmp_path)
    again, up, _ = read(fake, tmp_path / "c")
    assert (up.read, again) == ("cache", first)  # written again whole: it holds on the next run


def test_an_edited_base_is_reported_when_upstream_moved(fake, tmp_path):
    read(fake, tmp_path / "c")
    base, _, _ = trees(fake)
    edit(entry_dir(tmp_path / "c", fake) / f"files-{base}.json", EDITS["consistent"][0])
    fake.commit_files(REPO, "main", {"keps/sig-a/1-first/README.md": "# First, changed\n"})
    snap, up, _ = read(fake, tmp_path / "c")
    assert up.read == "tarball"
    assert [p.message.split(":")[0] for p in snap.problems] == ["upstream cache entry ignored"]
    assert snap._replace(problems=()) == full(fake, tmp_path)


@pytest.mark.parametrize(
    "damage, why",
    [
        (lambda text: "{not json", "not JSON"),
        (lambda text: text.replace('"version":2', '"version":7'), "not a version 2 entry"),
        (lambda text: text.replace('"keps":[', '"keps":[["../../etc/passwd","100644","' + "0" * 40 + '"],'), "keps:"),
        (lambda text: text.replace('"texts":[', '"texts":[["README.md","x"],'), "texts and large name kep.yaml"),
    ],
)
def test_a_corrupt_entry_is_ignored_with_a_problem_and_read_again(fake, tmp_path, damage, why):
    first, _, _ = read(fake, tmp_path / "c")
    head, _, _ = trees(fake)
    path = entry_dir(tmp_path / "c", fake) / f"files-{head}.json"
    path.write_text(damage(path.read_text(encoding="utf-8")), encoding="utf-8")
    snap, up, _ = read(fake, tmp_path / "c")
    assert up.read == "tarball"
    [problem] = [p for p in snap.problems if p.path == str(path)]
    assert problem.message.startswith(f"upstream cache entry ignored: {why}")
    assert snap._replace(problems=tuple(p for p in snap.problems if p != problem)) == first
    assert read(fake, tmp_path / "c")[0] == first


def test_an_entry_of_another_source_is_ignored_and_never_reused(fake, tmp_path):
    read(fake, tmp_path / "c")
    head, _, _ = trees(fake)
    fake.seed_repo("o/fork", {**FILES, K1: kep("1", "stable")})
    fork_head = fake.branch_sha("o/fork", "main")
    snap, up, sent = read(fake, tmp_path / "c", "o/fork")  # same cache_dir, another source: nothing reused
    assert (up.read, [k.stage for k in snap.all_keps()]) == ("tarball", ["stable", "beta"])
    ours = entry_dir(tmp_path / "c", fake) / f"files-{head}.json"
    foreign = entry_dir(tmp_path / "c", fake, "o/fork") / f"files-{fork_head}.json"
    ours.write_bytes(foreign.read_bytes().replace(fork_head.encode(), head.encode()))  # copied over, renamed
    snap, up, _ = read(fake, tmp_path / "c")
    assert (
        Problem(str(ours), "", "upstream cache entry ignored: an entry of another source; read from upstream instead")
        in snap.problems
    )
    assert (up.read, [k.stage for k in snap.all_keps()]) == ("tarball", ["alpha", "beta"])


SECRET = "s3cretPassw0rd-api"


def test_credentials_of_the_api_url_reach_no_cache_file_and_old_entries_are_deleted(fake, tmp_path):
    cache = tmp_path / "c"
    host = fake.url.removeprefix("http://")
    old_dir = cache / "upstream" / hashlib.sha256(f"http://bot:{SECRET}@{host} {REPO}".encode()).hexdigest()[:16]
    old_dir.mkdir(parents=True)
    source = f"http://bot:{SECRET}@{host} {REPO}"  # a version 1 entry kept the API URL as given
    (old_dir / "ref-0123456789abcdef.json").write_text(json.dumps({"version": 1, "source": source}))
    (old_dir / f"files-{'0' * 40}.json").write_text(json.dumps({"version": 1, "source": source, "files": []}))
    fake.reset_counters()
    up = reader(fake, cache, api_url=f"http://bot:{SECRET}@{host}")
    snap = up.snapshot()
    up.last_commits([K1], 30)
    assert snap == full(fake, tmp_path) and up.read == "tarball"
    assert not old_dir.exists()
    written = {str(p): p.read_bytes() for p in cache.rglob("*") if p.is_file()}
    assert sorted(Path(p).name for p in written) == [f"commits-{trees(fake)[0]}.json", f"files-{trees(fake)[0]}.json"]
    assert [p for p, data in written.items() if SECRET.encode() in data] == []
    assert up.cache.root == UpstreamCache(cache, f"{fake.url} {REPO}", []).root  # the key has no user-info either
