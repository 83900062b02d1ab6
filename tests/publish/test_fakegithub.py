"""The FakeGitHub server driven by the real PyGithub client over loopback HTTP."""

from __future__ import annotations

import hashlib
import shutil
import subprocess

import github
import httpx
import pytest
from github import Auth, GithubException, InputGitTreeElement, UnknownObjectException
from urllib3.util.retry import Retry

REPO = "kubernetes/wiki"
SEED = {"README.md": "# wiki\n", "docs/page.md": "| KEP | Status |\n", "docs/old.md": "stale\n"}


def client(fake, retry=None, auth=None) -> github.Github:
    return github.Github(
        base_url=fake.url,
        auth=auth or Auth.Token("t"),
        retry=retry,
        timeout=5,
        seconds_between_requests=0,
        seconds_between_writes=0,
    )


@pytest.fixture
def repo(fake_github):
    fake_github.seed_repo(REPO, SEED)
    return client(fake_github).get_repo(REPO)


def push_branch(repo, branch: str, files: dict[str, str], message: str = "bot: sync") -> str:
    """What the bot does: blob -> tree (on top of main) -> commit -> ref."""
    base = repo.get_git_commit(repo.get_branch("main").commit.sha)
    elements = [
        InputGitTreeElement(p, "100644", "blob", sha=repo.create_git_blob(c, "utf-8").sha) for p, c in files.items()
    ]
    tree = repo.create_git_tree(elements, base_tree=base.tree)
    commit = repo.create_git_commit(message, tree, [base])
    repo.create_git_ref(f"refs/heads/{branch}", commit.sha)
    return commit.sha


def test_seed_and_get_contents(fake_github, repo):
    assert repo.full_name == REPO and repo.default_branch == "main"
    page = repo.get_contents("docs/page.md", ref="main")
    assert page.decoded_content.decode() == SEED["docs/page.md"]
    data = SEED["docs/page.md"].encode()
    assert page.sha == hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    listing = repo.get_contents("docs")
    assert sorted(f.path for f in listing) == ["docs/old.md", "docs/page.md"]
    with pytest.raises(UnknownObjectException):
        repo.get_contents("nope.md")
    assert fake_github.read_file(REPO, "main", "README.md") == "# wiki\n"
    # every request carried the token (compare without printing it)
    assert fake_github.auth_headers and all(h == "token t" for h in fake_github.auth_headers)


def test_blob_tree_commit_ref_roundtrip(fake_github, repo):
    base = repo.get_git_commit(repo.get_branch("main").commit.sha)
    blob = repo.create_git_blob("new content\n", "utf-8")
    tree = repo.create_git_tree(
        [
            InputGitTreeElement("docs/page.md", "100644", "blob", sha=blob.sha),
            InputGitTreeElement("docs/sub/deep.md", "100644", "blob", content="deep\n"),
            InputGitTreeElement("docs/old.md", "100644", "blob", sha=None),  # delete
        ],
        base_tree=base.tree,
    )
    assert {e.path for e in tree.tree} == {"README.md", "docs"}
    flat = {e.path: e.type for e in repo.get_git_tree(tree.sha, recursive=True).tree}
    assert flat == {
        "README.md": "blob",
        "docs": "tree",
        "docs/page.md": "blob",
        "docs/sub": "tree",
        "docs/sub/deep.md": "blob",
    }
    commit = repo.create_git_commit("bot: update", tree, [base])
    assert commit.parents[0].sha == base.sha and commit.author.name == "kep-bot"
    assert commit.verification.verified is False  # token auth is not an app installation
    ref = repo.create_git_ref("refs/heads/kep-sync", commit.sha)
    assert ref.object.sha == commit.sha
    with pytest.raises(GithubException) as exc:
        repo.create_git_ref("refs/heads/kep-sync", commit.sha)
    assert exc.value.status == 422

    # fast-forward update works; rewinding needs force
    child = repo.create_git_commit("bot: more", tree, [commit])
    ref.edit(child.sha)
    assert repo.get_git_ref("heads/kep-sync").object.sha == child.sha
    with pytest.raises(GithubException) as exc:
        ref.edit(base.sha)
    assert exc.value.status == 422 and "fast forward" in exc.value.data["message"]
    ref.edit(base.sha, force=True)
    assert fake_github.branch_sha(REPO, "kep-sync") == base.sha
    assert repo.get_git_blob(blob.sha).content  # base64
    assert fake_github.read_file(REPO, child.sha, "docs/sub/deep.md") == "deep\n"
    ref.delete()
    with pytest.raises(UnknownObjectException):
        repo.get_git_ref("heads/kep-sync")


@pytest.mark.skipif(not shutil.which("git"), reason="git not installed")
def test_object_ids_match_real_git(fake_github, repo, tmp_path):
    commit = repo.get_git_commit(repo.get_branch("main").commit.sha)

    def git(*a, **kw):
        return subprocess.run(
            ["git", *a],
            cwd=tmp_path,
            check=True,
            capture_output=True,  # noqa: E731
            text=True,
            **kw,
        ).stdout.strip()

    git("init", "-q")
    for path, text in SEED.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    git("add", ".")
    assert git("write-tree") == commit.tree.sha
    a = commit.author
    env = {
        "GIT_AUTHOR_NAME": a.name,
        "GIT_AUTHOR_EMAIL": a.email,
        "GIT_COMMITTER_NAME": a.name,
        "GIT_COMMITTER_EMAIL": a.email,
        "GIT_AUTHOR_DATE": f"{int(a.date.timestamp())} +0000",
        "GIT_COMMITTER_DATE": f"{int(a.date.timestamp())} +0000",
        "PATH": "/usr/bin:/bin",
    }
    assert git("commit-tree", commit.tree.sha, input=commit.message, env=env) == commit.sha


def test_pull_request_lifecycle(fake_github, repo):
    push_branch(repo, "kep-sync", {"docs/page.md": "| KEP | Status |\n| 1 | alpha |\n"})
    pr = repo.create_pull(base="main", head="kep-sync", title="Sync KEP matrix", body="v1", draft=True)
    assert (pr.number, pr.state, pr.draft, pr.head.ref, pr.base.ref) == (1, "open", True, "kep-sync", "main")
    assert pr.html_url == f"https://github.com/{REPO}/pull/1" and pr.user.login == "kep-bot"
    assert pr.changed_files == 1 and pr.commits == 1

    pr.edit(body="v2", title="Sync KEP matrix (2 changes)")
    pr.add_to_labels("kep-sync", "area/docs")
    pr.set_labels("kep-sync")
    pr.create_review_request(reviewers=["alice"], team_reviewers=["sig-release"])
    pr.add_to_assignees("alice")
    pr.create_issue_comment("Updated the matrix")
    with pytest.raises(GithubException) as exc:  # GitHub refuses author as reviewer
        pr.create_review_request(reviewers=["kep-bot"])
    assert exc.value.status == 422

    again = repo.get_pull(1)
    assert (again.title, again.body) == ("Sync KEP matrix (2 changes)", "v2")
    assert [lab.name for lab in again.get_labels()] == ["kep-sync"]
    assert [u.login for u in again.requested_reviewers] == ["alice"]
    assert [t.slug for t in again.requested_teams] == ["sig-release"]
    assert [u.login for u in again.assignees] == ["alice"]
    assert [c.body for c in again.get_issue_comments()] == ["Updated the matrix"]
    assert [c.commit.message for c in again.get_commits()] == ["bot: sync"]
    assert again.as_issue().pull_request is not None

    with pytest.raises(GithubException) as exc:  # one open PR per head/base
        repo.create_pull(base="main", head="kep-sync", title="dup")
    assert exc.value.status == 422

    # head filter needs "owner:branch"; a bare branch name is ignored like on GitHub
    push_branch(repo, "other", {"x.md": "x\n"})
    repo.create_pull(base="main", head="other", title="Other")
    assert [p.number for p in repo.get_pulls(state="open", head="kubernetes:kep-sync")] == [1]
    assert repo.get_pulls(state="open", head="kep-sync").totalCount == 2
    assert [p.number for p in repo.get_pulls(base="main", direction="asc")] == [1, 2]

    fake_github.close_pull(1, merged=True, repo=REPO)
    closed = repo.get_pull(1)
    assert (closed.state, closed.merged) == ("closed", True)
    assert fake_github.read_file(REPO, "main", "docs/page.md").endswith("| 1 | alpha |\n")
    assert [p.number for p in repo.get_pulls(state="closed")] == [1]
    assert repo.get_pulls(state="all").totalCount == 2


def test_compare_and_commit_sha_media_type(fake_github, repo):
    main_sha = repo.get_branch("main").commit.sha
    bot_sha = push_branch(repo, "kep-sync", {"docs/page.md": "new\n"})
    cmp = repo.compare("main", "kep-sync")
    assert (cmp.status, cmp.ahead_by, cmp.behind_by) == ("ahead", 1, 0)
    assert [c.sha for c in cmp.commits] == [bot_sha] and cmp.commits[0].author.login == "kep-bot"
    assert [f.filename for f in cmp.files] == ["docs/page.md"]
    assert repo.compare("kep-sync", "kep-sync").status == "identical"

    human = fake_github.commit_files(REPO, "main", {"README.md": "edited by a human\n"})
    cmp = repo.compare("main", "kep-sync")
    assert (cmp.status, cmp.ahead_by, cmp.behind_by) == ("diverged", 1, 1)
    assert cmp.merge_base_commit.sha == main_sha
    back = repo.compare("kep-sync", "main")
    assert back.commits[0].author.login == "human" and back.commits[0].sha == human

    commit = repo.get_commit("kep-sync")
    assert commit.sha == bot_sha and [f.filename for f in commit.files] == ["docs/page.md"]
    resp = httpx.get(
        f"{fake_github.url}/repos/{REPO}/commits/main",
        headers={"Accept": "application/vnd.github.sha", "Authorization": "token t"},
    )
    assert resp.status_code == 200 and resp.text == human
    assert httpx.get(f"{fake_github.url}/repos/{REPO}/commits/main").status_code == 401  # no token


def test_fault_injection_and_retries(fake_github, repo):
    fake_github.fail_next("GET", r"/branches/main$", 502)
    with pytest.raises(GithubException) as exc:
        repo.get_branch("main")
    assert exc.value.status == 502
    assert repo.get_branch("main").name == "main"  # manual retry

    fake_github.fail_next("*", r"/repos/kubernetes/wiki$", 502, times=2)
    retrying = client(fake_github, retry=Retry(total=3, backoff_factor=0, status_forcelist=[502], allowed_methods=None))
    assert retrying.get_repo(REPO).name == "wiki"  # PyGithub/urllib3 retried twice
    assert [s for m, p, s in fake_github.requests if p == f"/repos/{REPO}"][-3:] == [502, 502, 200]

    fake_github.fail_next("POST", r"/git/blobs$", 429, headers={"Retry-After": "1"})
    with pytest.raises(GithubException) as exc:
        repo.create_git_blob("x", "utf-8")
    assert exc.value.status == 429 and exc.value.headers["retry-after"] == "1"


def test_pull_body_limit(fake_github, repo):
    push_branch(repo, "kep-sync", {"a.md": "a\n"})
    with pytest.raises(GithubException) as exc:
        repo.create_pull(base="main", head="kep-sync", title="t", body="x" * 65537)
    assert exc.value.status == 422
    assert "body is too long (maximum is 65536 characters)" in str(exc.value.data)
    pr = repo.create_pull(base="main", head="kep-sync", title="t", body="x" * 65536)
    with pytest.raises(GithubException):
        pr.edit(body="y" * 70000)
    assert fake_github.pull(pr.number, REPO)["body"] == "x" * 65536


def test_request_counting(fake_github, repo):
    fake_github.reset_counters()
    push_branch(repo, "kep-sync", {"a.md": "a\n"})
    # GET branch, GET git commit, POST blob, POST tree, POST commit, POST ref
    assert [m for m, _, _ in fake_github.requests] == ["GET", "GET", "POST", "POST", "POST", "POST"]
    assert fake_github.writes == 4
    assert all(status < 300 for _, _, status in fake_github.requests)


def test_deleting_head_branch_closes_pull(fake_github, repo):
    push_branch(repo, "kep-sync", {"a.md": "a\n"})
    pr = repo.create_pull(base="main", head="kep-sync", title="t")
    repo.get_git_ref("heads/kep-sync").delete()
    assert repo.get_pull(pr.number).state == "closed"


def test_github_app_installation_token(fake_github):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    fake_github.seed_repo(REPO, SEED)
    integration = github.GithubIntegration(auth=Auth.AppAuth(123, pem), base_url=fake_github.url, retry=None)
    installation = integration.get_repo_installation("kubernetes", "wiki")
    assert installation.id == fake_github.installation_id

    gh = client(fake_github, auth=Auth.AppAuth(123, pem).get_installation_auth(installation.id))
    repo = gh.get_repo(REPO)
    sha = push_branch(repo, "kep-sync", {"a.md": "a\n"})
    assert repo.get_git_commit(sha).verification.verified is True
    assert repo.get_commit(sha).author.login == "kep-sync[bot]"
    assert fake_github.jwt_claims and str(fake_github.jwt_claims[0]["iss"]) == "123"
    assert len(fake_github.installation_tokens) == 1
    with pytest.raises(GithubException) as exc:
        _ = gh.get_user().login
    assert exc.value.status == 403
