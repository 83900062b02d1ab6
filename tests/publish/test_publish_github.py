"""End to end: the real PyGithub client over HTTP against the stateful fake GitHub (tests/fakegithub/).

Each scenario asserts the branch tree, the pull request and the exact API calls.
"""

from __future__ import annotations

import github
import pytest

from bot.errors import PublishError
from bot.publish import pull_request as prmod
from tests.fakegithub import git_sha
from tests.publishutil import (
    BRANCH,
    COMMIT,
    OPEN,
    PAGE,
    PAGE_PATH,
    PROMOTED,
    README,
    READS,
    READS_PR,
    REPO,
    UPDATE,
    R,
    fresh_logging,  # noqa: F401  (autouse fixture)
    keps,
    opened,
    page,
    run_github,
)


def state(gh, number: int = 1) -> prmod.PrState:
    return prmod.parse_state(gh.pull(number)["body"])


def test_first_run_opens_the_pull_request(gh, cfg):
    run = opened(gh, cfg)
    assert run.url == f"https://github.com/{REPO}/pull/1"
    assert (run.written, run.blocked) == ([PAGE_PATH], False)
    assert run.requests == READS + OPEN and run.count == 10 and run.writes == 7
    assert (gh.read_file(REPO, BRANCH, PAGE_PATH), gh.read_file(REPO, BRANCH, "README.md")) == (PROMOTED, README)
    assert gh.branch_sha(REPO, "main") == gh.base
    head = gh.branch_sha(REPO, BRANCH)
    assert gh.commits[head]["parents"] == [gh.base]
    assert "Kep-Sync-Fingerprint: " in gh.commits[head]["message"]
    pr = gh.pull(1)
    assert (pr["state"], pr["title"], pr["draft"]) == (
        "open",
        "Update KEP matrix: 2 changes in 1 KEP (1 promoted, 1 retargeted)",
        False,
    )
    assert (pr["labels"], pr["assignees"], pr["reviewers"], pr["teams"]) == (
        ["kep-sync"],
        ["bob"],
        ["alice"],
        ["sig-arch"],
    )
    assert pr["body"].startswith(prmod.BEGIN) and pr["body"].endswith(prmod.END)
    assert "[4671](https://kep.k8s.io/4671)" in pr["body"]
    pages = prmod.pages_digest({PAGE_PATH: git_sha("blob", PAGE.encode())})
    assert state(gh) == prmod.PrState(
        run.plan.snapshot.revision, prmod.fingerprint(run.plan.changes), gh.base, pages, head, "open"
    )


def test_second_run_makes_zero_writes(gh, cfg):
    opened(gh, cfg)
    head, body = gh.branch_sha(REPO, BRANCH), gh.pull(1)["body"]
    run = run_github(gh, keps(), cfg)
    assert run.requests == READS_PR and run.count == 4 and run.writes == 0
    assert run.url.endswith("/pull/1") and (run.written, run.blocked) == ([], False)
    assert (gh.branch_sha(REPO, BRANCH), gh.pull(1)["body"]) == (head, body)


def test_a_changed_page_set_with_the_same_pages_makes_no_empty_commit(gh, cfg):
    opened(gh, cfg)
    head = gh.branch_sha(REPO, BRANCH)
    cfg = cfg.model_copy(update={"wiki": cfg.wiki.model_copy(update={"pages": [PAGE_PATH, "README.md"]})})
    run = run_github(gh, keps(), cfg)  # a page with nothing to sync joined the page set
    assert run.requests == READS + [
        ("GET", f"{R}/contents/README.md"),
        ("GET", f"{R}/issues/1/comments"),
        ("GET", f"{R}/compare/{gh.base}...{head}"),
        ("PATCH", f"{R}/pulls/1"),
    ]
    assert (run.written, run.blocked, run.writes) == ([], False, 1)
    assert gh.branch_sha(REPO, BRANCH) == head and state(gh).head == head
    again = run_github(gh, keps(), cfg)
    assert again.writes == 0 and gh.branch_sha(REPO, BRANCH) == head


def test_upstream_change_updates_the_same_pull_request(gh, cfg):
    opened(gh, cfg)
    first = gh.branch_sha(REPO, BRANCH)
    gh.pull(1)["body"] = "Reviewer notes: check SIG Scheduling.\n\n" + gh.pull(1)["body"] + "\n\nThanks!"
    run = run_github(gh, keps(beta_4671="v1.36"), cfg)
    assert run.requests == READS_PR + UPDATE and run.count == 9 and run.writes == 5 and run.written == [PAGE_PATH]
    assert sorted(gh.repos[REPO]["pulls"]) == [1]
    assert gh.read_file(REPO, BRANCH, PAGE_PATH) == page([(4671, "beta", "v1.36"), (5710, "alpha", "-")])
    head = gh.branch_sha(REPO, BRANCH)
    assert gh.commits[head]["parents"] == [first]  # a new commit on top, no force push
    body = gh.pull(1)["body"]
    assert body.startswith("Reviewer notes: check SIG Scheduling.\n\n" + prmod.BEGIN)
    assert body.endswith(prmod.END + "\n\nThanks!")
    assert "v1.36" in body and state(gh).head == head
    assert gh.pull(1)["labels"] == ["kep-sync"]  # labels/reviewers are not re-added on update


def test_foreign_commit_is_not_clobbered_and_commented_once(gh, cfg):
    opened(gh, cfg)
    foreign = gh.commit_files(REPO, BRANCH, {"docs/extra.md": "mine\n"}, "human fix")
    run = run_github(gh, keps(beta_4671="v1.36"), cfg)
    comments = [("GET", f"{R}/issues/1/comments"), ("POST", f"{R}/issues/1/comments")]
    # the head's identity (human) is compared with the recorded bot commit's
    heads = [("GET", f"{R}/git/commits/{foreign}"), ("GET", f"{R}/git/commits/{state(gh).head}")]
    assert run.requests == READS_PR + heads + comments and run.writes == 1
    assert (run.blocked, run.written, run.url) == (True, [], f"https://github.com/{REPO}/pull/1")
    assert gh.branch_sha(REPO, BRANCH) == foreign
    again = run_github(gh, keps(beta_4671="v1.36"), cfg)
    assert again.requests == READS_PR + heads + comments[:1] and again.writes == 0
    assert (again.blocked, again.written) == (True, [])
    notes = [c["body"] for c in gh.comments.values()]
    assert len(notes) == 1 and prmod.FOREIGN_COMMENT_TAG in notes[0] and prmod.REGENERATE_LABEL in notes[0]
    assert gh.read_file(REPO, BRANCH, "docs/extra.md") == "mine\n"


def test_regenerate_label_replaces_a_foreign_commit(gh, cfg):
    opened(gh, cfg)
    foreign = gh.commit_files(REPO, BRANCH, {PAGE_PATH: "vandalised\n"}, "human edit")
    gh.pull(1)["labels"].append(prmod.REGENERATE_LABEL)
    recorded = state(gh).head
    run = run_github(gh, keps(), cfg)
    assert run.requests == READS_PR + [
        ("GET", f"{R}/git/commits/{foreign}"),
        ("GET", f"{R}/git/commits/{recorded}"),
    ] + COMMIT + [
        ("PATCH", f"{R}/git/refs/heads/{BRANCH}"),
        ("PATCH", f"{R}/pulls/1"),
        ("DELETE", f"{R}/issues/1/labels/{prmod.REGENERATE_LABEL}"),
    ]
    assert (run.blocked, run.written) == (False, [PAGE_PATH])
    head = gh.branch_sha(REPO, BRANCH)
    assert gh.commits[head]["parents"] == [gh.base]
    assert gh.read_file(REPO, BRANCH, PAGE_PATH) == PROMOTED
    assert gh.pull(1)["labels"] == ["kep-sync"] and state(gh).head == head


def test_amended_bot_commit_counts_as_foreign(gh, cfg):
    opened(gh, cfg)
    human = github.Github(
        auth=github.Auth.Token("human"),
        base_url=gh.url,
        retry=None,
        seconds_between_requests=None,
        seconds_between_writes=None,
    ).get_repo(REPO)
    bot = human.get_git_commit(gh.branch_sha(REPO, BRANCH))  # "git commit --amend": same message and parent
    tree = human.create_git_tree([github.InputGitTreeElement("x.md", "100644", "blob", content="x\n")], bot.tree)
    amended = human.create_git_commit(bot.message, tree, bot.parents)
    human.get_git_ref(f"heads/{BRANCH}").edit(amended.sha, force=True)
    run = run_github(gh, keps(beta_4671="v1.36"), cfg)
    assert ("POST", f"{R}/issues/1/comments") in run.requests and gh.branch_sha(REPO, BRANCH) == amended.sha


@pytest.mark.parametrize("on_top", [False, True])
def test_a_human_commit_with_the_bot_trailers_and_tree_is_foreign(gh, cfg, on_top):
    """A human re-commit of the bot's exact message and tree: as an amend (same parent) or on top of the bot head."""
    opened(gh, cfg)
    human = github.Github(
        auth=github.Auth.Token("human"),
        base_url=gh.url,
        retry=None,
        seconds_between_requests=None,
        seconds_between_writes=None,
    ).get_repo(REPO)
    bot = human.get_git_commit(gh.branch_sha(REPO, BRANCH))
    copy = human.create_git_commit(bot.message, bot.tree, [bot] if on_top else bot.parents)
    human.get_git_ref(f"heads/{BRANCH}").edit(copy.sha, force=True)
    assert "Kep-Sync-Fingerprint: " in gh.commits[copy.sha]["message"]
    run = run_github(gh, keps(beta_4671="v1.36"), cfg)
    assert (run.blocked, run.written) == (True, []) and gh.branch_sha(REPO, BRANCH) == copy.sha
    assert ("POST", f"{R}/issues/1/comments") in run.requests and run.writes == 1


def test_leftover_branch_with_a_human_commit_carrying_bot_trailers_is_not_overwritten(gh, cfg):
    foreign = gh.commit_files(
        REPO, BRANCH, {"notes.md": "mine\n"}, "Human work\n\nKep-Sync-Fingerprint: 0123456789abcdef\n"
    )
    with pytest.raises(PublishError, match="exists with a commit kep-sync did not make"):
        run_github(gh, keps(), cfg)
    assert gh.branch_sha(REPO, BRANCH) == foreign and gh.repos[REPO]["pulls"] == {}


def test_an_open_pull_request_whose_branch_was_deleted_gets_the_branch_back(gh, cfg):
    opened(gh, cfg)
    del gh.repos[REPO]["refs"][f"refs/heads/{BRANCH}"]  # deleted without closing the pull request
    assert gh.pull(1)["state"] == "open"
    run = run_github(gh, keps(beta_4671="v1.36"), cfg)
    assert run.requests == READS_PR + COMMIT + [
        ("PATCH", f"{R}/git/refs/heads/{BRANCH}"),
        ("POST", f"{R}/git/refs"),
        ("PATCH", f"{R}/pulls/1"),
    ]
    assert run.statuses[7:] == [422, 201, 200] and (run.blocked, run.written) == (False, [PAGE_PATH])
    head = gh.branch_sha(REPO, BRANCH)
    assert state(gh).head == head and gh.read_file(REPO, BRANCH, PAGE_PATH) == page(
        [(4671, "beta", "v1.36"), (5710, "alpha", "-")]
    )
    again = run_github(gh, keps(beta_4671="v1.36"), cfg)
    assert again.requests == READS_PR and again.writes == 0


def test_bot_commit_left_by_a_failed_run_is_recognised(gh, cfg):
    opened(gh, cfg)
    gh.fail_next("PATCH", r"/pulls/1$", 422, times=1, message="Validation Failed")
    with pytest.raises(PublishError, match="update pull request #1: HTTP 422"):
        run_github(gh, keps(beta_4671="v1.36"), cfg)
    moved, recorded = gh.branch_sha(REPO, BRANCH), state(gh).head
    assert recorded != moved
    run = run_github(gh, keps(beta_4671="v1.36"), cfg)
    # same identity as the recorded bot commit, and exactly this run's tree: the bot's own
    assert (
        run.requests
        == READS_PR
        + [
            ("GET", f"{R}/git/commits/{moved}"),
            ("GET", f"{R}/git/commits/{recorded}"),
            ("GET", f"{R}/compare/{gh.base}...{moved}"),
        ]
        + UPDATE
    )
    assert gh.commits[gh.branch_sha(REPO, BRANCH)]["parents"] == [moved] and state(gh).head == gh.branch_sha(
        REPO, BRANCH
    )


def test_closed_pull_request_is_not_recreated(gh, cfg):
    opened(gh, cfg)
    gh.close_pull(1)
    run = run_github(gh, keps(), cfg)
    assert run.requests == READS and run.writes == 0 and (run.url, run.written, run.blocked) == ("", [], False)
    assert sorted(gh.repos[REPO]["pulls"]) == [1] and gh.pull(1)["state"] == "closed"
    # new upstream data: a new pull request that links the closed one; the leftover branch is the bot's
    run = run_github(gh, keps(beta_4671="v1.36"), cfg)
    assert run.requests == READS + COMMIT + [
        ("POST", f"{R}/git/refs"),
        ("GET", f"{R}/git/ref/heads/{BRANCH}"),
        ("PATCH", f"{R}/git/refs/heads/{BRANCH}"),
        ("POST", f"{R}/pulls"),
        ("PATCH", f"{R}/issues/2"),
        ("POST", f"{R}/pulls/2/requested_reviewers"),
    ]
    assert run.statuses[6] == 422 and run.count == 12
    assert run.url.endswith("/pull/2") and gh.pull(2)["state"] == "open"
    assert "Follows #1, which was closed without merge." in gh.pull(2)["body"] and state(gh, 2).follows == "1"
    assert gh.commits[gh.branch_sha(REPO, BRANCH)]["parents"] == [gh.base]


def test_leftover_foreign_branch_is_not_overwritten(gh, cfg):
    gh.commit_files(REPO, BRANCH, {"notes.md": "someone else's work\n"})
    foreign = gh.branch_sha(REPO, BRANCH)
    with pytest.raises(PublishError, match="exists with a commit kep-sync did not make"):
        run_github(gh, keps(), cfg)
    assert gh.branch_sha(REPO, BRANCH) == foreign and gh.repos[REPO]["pulls"] == {}


def test_base_moved_regenerates_from_the_new_base(gh, cfg):
    opened(gh, cfg)
    edited = page(note="groups (edited on main)")
    new_base = gh.commit_files(REPO, "main", {PAGE_PATH: edited})
    run = run_github(gh, keps(), cfg)
    assert run.requests == READS_PR + UPDATE and run.writes == 5
    head = gh.branch_sha(REPO, BRANCH)
    assert gh.commits[head]["parents"] == [new_base]
    assert gh.read_file(REPO, BRANCH, PAGE_PATH) == page(
        [(4671, "beta", "v1.37"), (5710, "alpha", "-")], note="groups (edited on main)"
    )
    assert state(gh).base == new_base and gh.pull(1)["state"] == "open"


def test_base_moved_elsewhere_needs_no_update(gh, cfg):
    opened(gh, cfg)
    head = gh.branch_sha(REPO, BRANCH)
    gh.commit_files(REPO, "main", {"README.md": "wiki, edited\n"})
    run = run_github(gh, keps(), cfg)
    assert run.requests == READS_PR and run.writes == 0 and gh.branch_sha(REPO, BRANCH) == head


def test_base_already_up_to_date_closes_the_pull_request(gh, cfg):
    opened(gh, cfg)
    gh.commit_files(REPO, "main", {PAGE_PATH: PROMOTED}, "hand edit")
    run = run_github(gh, keps(), cfg)
    assert run.requests == READS_PR + [
        ("POST", f"{R}/issues/1/comments"),
        ("PATCH", f"{R}/pulls/1"),
        ("DELETE", f"{R}/git/refs/heads/{BRANCH}"),
    ]
    assert (run.url, run.written) == ("", []) and gh.pull(1)["state"] == "closed"
    assert gh.branch_sha(REPO, BRANCH) is None
    assert state(gh).status == "superseded"
    assert "superseded" in next(iter(gh.comments.values()))["body"]
    again = run_github(gh, keps(), cfg)
    assert again.requests == READS and again.writes == 0


def test_merged_pull_request_leaves_nothing_to_do(gh, cfg):
    opened(gh, cfg)
    gh.close_pull(1, merged=True)
    run = run_github(gh, keps(), cfg)
    assert run.requests == READS and run.writes == 0 and run.url == ""
