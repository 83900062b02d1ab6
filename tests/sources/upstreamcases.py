"""A ``github:`` upstream on the loopback fake GitHub (tests/fakegithub/) and the reads of it, for the tests of
``bot.sources.upstream`` and its cache (tests/sources/test_upstream.py, test_upstream_cache.py); the ``fake``
fixture (tests/sources/conftest.py) seeds :data:`REPO` with :data:`FILES`.

    snap, up, sent = read(fake, tmp_path / "c")  # one new reader's snapshot and the requests it made
    head, tree, keps_tree = trees(fake)
    assert snap == full(fake, tmp_path)
"""

from __future__ import annotations

from pathlib import Path

from bot.http import RequestCounter, make_client
from bot.model.snapshot import Snapshot
from bot.sources.enhancements import load_snapshot
from bot.sources.upstream import GitHubUpstream
from bot.sources.upstream_cache import UpstreamCache
from tests.fakegithub import FakeGitHub

REPO = "o/enh"
#: The API path of :data:`REPO`.
ENH = "/repos/o/enh"
#: The token the ``fake`` fixture puts in ``GITHUB_TOKEN`` and the readers send.
TOKEN = "t0ken-upstream"
K1, K2 = "keps/sig-a/1-first/kep.yaml", "keps/sig-b/2-second/kep.yaml"


def kep(number: str, stage: str = "alpha") -> str:
    """A minimal kep.yaml (implementable) of KEP ``number`` at ``stage``."""
    return f'title: KEP {number}\nkep-number: "{number}"\nstatus: implementable\nstage: {stage}\n'


#: ``{path: text}`` of :data:`REPO`'s branch ``main`` as seeded: KEP 1 (alpha) and KEP 2 (beta), a README at the top
#: and in KEP 1's directory, one production-readiness file.
FILES = {
    "README.md": "# enhancements\n",
    K1: kep("1"),
    "keps/sig-a/1-first/README.md": "# First\n",
    K2: kep("2", "beta"),
    "keps/prod-readiness/sig-a/1.yaml": "kep-number: 1\n",
}


def reader(fake: FakeGitHub, cache: Path, repo: str = REPO, api_url: str = "") -> GitHubUpstream:
    """A new reader of ``repo``'s ``main`` at ``api_url`` (default: the fake's URL), caching in ``cache``."""
    return GitHubUpstream(repo, "main", cache, api_url=api_url or fake.url, token=TOKEN, counter=RequestCounter())


def read(fake: FakeGitHub, cache: Path, repo: str = REPO, known=None):
    """``(snapshot, reader, [(method, path, status)])`` of one new reader's snapshot; ``known`` is the
    ``(ETag, revision)`` a caller's state keeps, handed to ``probe``."""
    fake.reset_counters()
    up = reader(fake, cache, repo)
    up.probe(known)
    snap = up.snapshot()
    return snap, up, list(fake.requests)


def full(fake: FakeGitHub, tmp_path: Path, repo: str = REPO) -> Snapshot:
    """The snapshot a plain read (the tarball, no cache) gives now."""
    with make_client(TOKEN) as client:
        return load_snapshot(f"github:{repo}@main", tmp_path / "unused", api_url=fake.url, client=client)


def trees(fake: FakeGitHub, repo: str = REPO) -> tuple[str, str, str]:
    """``(head, its tree id, the tree id of keps/)`` of the branch now."""
    head = fake.branch_sha(repo, "main")
    root = fake.commits[head]["tree"]
    return head, root, fake.trees[root]["keps"][2]


def entry_dir(cache: Path, fake: FakeGitHub, repo: str = REPO) -> Path:
    """The directory under ``cache`` that holds the cache entries of ``repo`` at the fake's URL."""
    return UpstreamCache(cache, f"{fake.url} {repo}", []).root
