"""Real-data acceptance: a github: source read incrementally over real enhancements commits (the bundle in
../shared served by the loopback fake GitHub) gives, at every commit, exactly the snapshot a full read of
that commit gives. Skipped when the bundle is absent; nothing from ../shared is copied into the project.

Each distinct kep.yaml is parsed once for both reads and every step (tests/acceptance/conftest.py): what
differs between the two reads, which files each sees at which bytes and the snapshot each builds from them,
is compared whole at every commit."""

from __future__ import annotations

import pytest

from bot.http import RequestCounter
from bot.model.snapshot import build_snapshot
from bot.sources.enhancements import with_problems
from bot.sources.git import scan_git_tree
from bot.sources.upstream import GitHubUpstream
from tests.conftest import BUNDLE
from tests.fakegithub import FakeGitHub
from tests.fakeupstream import load_git_repo, move_branch

pytestmark = [
    pytest.mark.acceptance,
    pytest.mark.skipif(not BUNDLE.is_file(), reason=f"{BUNDLE} is absent"),
]

REPO = "kubernetes/enhancements"


def test_incremental_snapshots_equal_full_reads_over_real_commits(tmp_path, bundle_clone):
    repo = bundle_clone
    with FakeGitHub(require_auth=False) as fake:
        line = load_git_repo(fake, repo, REPO)
        # one commit at a time over 12 commits, then jumps of 3 and 60 commits (the last one: more changed
        # kep.yaml files than blob requests are worth, so the tarball)
        steps = list(range(len(line) - 200, len(line) - 188)) + [len(line) - 186, len(line) - 126]
        reads = []
        for i in steps:
            move_branch(fake, REPO, "master", line[i])
            up = GitHubUpstream(REPO, "master", tmp_path / "cache", api_url=fake.url, counter=RequestCounter())
            snap = up.snapshot()
            files, problems = scan_git_tree(repo, line[i])
            assert snap == with_problems(build_snapshot(files, f"github:{REPO}@master", line[i]), problems), line[i]
            reads.append(up.read)
    assert reads == ["tarball"] + ["compare"] * 12 + ["tarball"], " ".join(reads)
