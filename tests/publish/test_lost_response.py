"""GitHub did the write but the answer was lost (a 502 after the pull request, ref or comment was created):
the retry checks before repeating, so the run succeeds with exactly one of each. Real PyGithub against the
fake (tests/fakegithub/, ``fail_next(..., applied=True)``)."""

from __future__ import annotations

from tests.publishutil import (
    BRANCH,
    COMMIT,
    OPEN,
    PAGE_PATH,
    PROMOTED,
    READS,
    REPO,
    R,
    fresh_logging,  # noqa: F401  (autouse fixture)
    keps,
    run_github,
)


def test_fake_applies_the_write_then_answers_502(gh):
    import github

    client = github.Github(
        base_url=gh.url, auth=github.Auth.Token("t"), retry=None, seconds_between_requests=0, seconds_between_writes=0
    )
    repo = client.get_repo(REPO)
    gh.fail_next("POST", r"/git/refs$", 502, applied=True)
    try:
        repo.create_git_ref("refs/heads/x", gh.base)
    except github.GithubException as exc:
        assert exc.status == 502
    assert gh.branch_sha(REPO, "x") == gh.base


def test_pull_request_created_but_answer_lost_is_found_not_opened_twice(gh, cfg):
    gh.fail_next("POST", r"/pulls$", 502, applied=True)
    run = run_github(gh, keps(), cfg)
    assert run.url == f"https://github.com/{REPO}/pull/1"
    assert sorted(gh.repos[REPO]["pulls"]) == [1]  # exactly one pull request
    assert 422 not in run.statuses and run.statuses.count(502) == 1
    assert (
        run.requests
        == READS + COMMIT + [("POST", f"{R}/git/refs"), ("POST", f"{R}/pulls"), ("GET", f"{R}/pulls")] + OPEN[5:]
    )
    assert (run.written, run.sleeps) == ([PAGE_PATH], [2.0])
    assert gh.read_file(REPO, BRANCH, PAGE_PATH) == PROMOTED
    labels = list(gh.pull(1)["labels"])
    assert labels == ["kep-sync"]  # the pull request found was decorated once, as a new one is


def test_branch_created_but_answer_lost_is_found_not_created_twice(gh, cfg):
    gh.fail_next("POST", r"/git/refs$", 502, applied=True)
    run = run_github(gh, keps(), cfg)
    assert 422 not in run.statuses and run.statuses.count(502) == 1
    assert (
        run.requests == READS + COMMIT + [("POST", f"{R}/git/refs"), ("GET", f"{R}/git/ref/heads/{BRANCH}")] + OPEN[4:]
    )
    assert run.url.endswith("/pull/1") and sorted(gh.repos[REPO]["pulls"]) == [1]


def test_comment_posted_but_answer_lost_is_not_posted_twice(gh, cfg):
    run_github(gh, keps(), cfg)
    gh.commit_files(REPO, "main", {PAGE_PATH: PROMOTED}, "a human applied the rows")  # the PR is superseded
    gh.fail_next("POST", r"/issues/1/comments$", 502, applied=True)
    run = run_github(gh, keps(), cfg)
    assert 422 not in run.statuses and run.statuses.count(502) == 1
    assert ("GET", f"{R}/issues/1/comments") in run.requests
    assert [c["body"][:30] for c in gh.comments.values()] == ["The base branch `main` already"]
    assert gh.pull(1)["state"] == "closed"


def test_label_removed_but_answer_lost_is_not_removed_twice(gh, cfg):
    from bot.publish import pull_request as prmod

    run_github(gh, keps(), cfg)
    gh.commit_files(REPO, BRANCH, {PAGE_PATH: "vandalised\n"}, "human edit")
    gh.pull(1)["labels"].append(prmod.REGENERATE_LABEL)
    gh.fail_next("DELETE", r"/labels/", 502, applied=True)
    run = run_github(gh, keps(), cfg)  # a 404 "Label does not exist" on the repeat would fail the run
    assert 404 not in run.statuses and run.statuses.count(502) == 1
    assert run.requests[-2:] == [
        ("DELETE", f"{R}/issues/1/labels/{prmod.REGENERATE_LABEL}"),
        ("GET", f"{R}/issues/1/labels"),
    ]
    assert (run.blocked, run.written) == (False, [PAGE_PATH]) and gh.pull(1)["labels"] == ["kep-sync"]
