"""End to end: the real PyGithub client over HTTP against the stateful fake GitHub (tests/fakegithub/).

Each scenario asserts the branch tree, the pull request and the exact API calls.
"""

from __future__ import annotations

import json
import time

import github
import pytest
import structlog
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from bot.errors import ConfigError, PublishError
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
    github_config,
    keps,
    page,
    run_github,
)


def opened(gh, cfg):
    """First run; returns the Run."""
    return run_github(gh, keps(), cfg)


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


def test_502_then_success(gh, cfg):
    gh.fail_next("POST", r"/git/commits$", 502)
    run = opened(gh, cfg)
    assert run.sleeps == [2.0] and run.statuses.count(502) == 1
    assert run.requests == READS + COMMIT + OPEN[2:] and run.count == 11
    assert gh.read_file(REPO, BRANCH, PAGE_PATH) == PROMOTED and gh.pull(1)["state"] == "open"


def test_persistent_5xx_fails_with_nothing_half_done(gh, cfg):
    gh.fail_next("POST", r"/git/refs$", 503, times=99)
    with pytest.raises(PublishError, match=r"GitHub API: create the bot branch: HTTP 503 Injected failure"):
        run_github(gh, keps(), cfg)
    assert gh.branch_sha(REPO, BRANCH) is None and gh.repos[REPO]["pulls"] == {}
    assert [p for m, p, _ in gh.requests].count(f"{R}/git/refs") == 5


def test_failed_pull_request_creation_is_recovered_by_the_next_run(gh, cfg):
    gh.fail_next("POST", r"/pulls$", 500, times=5)
    with pytest.raises(PublishError, match="open the pull request: HTTP 500"):
        opened(gh, cfg)
    left = gh.branch_sha(REPO, BRANCH)  # a complete bot commit, no pull request
    assert gh.read_file(REPO, left, PAGE_PATH) == PROMOTED and gh.repos[REPO]["pulls"] == {}
    run = opened(gh, cfg)
    assert (
        run.requests
        == READS
        + COMMIT
        + [
            ("POST", f"{R}/git/refs"),
            ("GET", f"{R}/git/ref/heads/{BRANCH}"),
            ("GET", f"{R}/git/commits/{left}"),
            ("GET", f"{R}/compare/{gh.base}...{left}"),
            ("PATCH", f"{R}/git/refs/heads/{BRANCH}"),
        ]
        + OPEN[4:]
    )
    assert run.url.endswith("/pull/1") and sorted(gh.repos[REPO]["pulls"]) == [1]


def test_429_with_retry_after_is_waited_out(gh, cfg):
    gh.fail_next("POST", r"/pulls$", 429, headers={"Retry-After": "7"}, message="secondary rate limit")
    run = opened(gh, cfg)
    assert run.sleeps == [7.0] and run.count == 11 and gh.pull(1)["state"] == "open"


def test_403_rate_limit_reset_in_the_past_retries_at_once(gh, cfg):
    reset = str(int(time.time()) - 60)
    gh.fail_next(
        "GET",
        r"/pulls$",
        403,
        headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset},
        message="API rate limit exceeded",
    )
    run = opened(gh, cfg)
    assert run.sleeps == [0.0] and run.url.endswith("/pull/1")


def test_rate_limit_wait_over_the_budget_fails_clearly(gh, cfg):
    gh.fail_next("GET", r"/pulls$", 429, headers={"Retry-After": "3600"}, message="slow down")
    with pytest.raises(
        PublishError, match=r"HTTP 429 slow down \(rate limited; the wait of 3600s is over the budget\)"
    ):
        opened(gh, cfg)
    assert len(gh.requests) == 1


def test_body_over_the_limit_is_cut_at_a_row_boundary(gh, cfg):
    # 601 KEPs promoted (1202 changes), plus a row no kep.yaml has (1 report-only finding, cut with the rest)
    rows = [(4671, "alpha", "-"), (5710, "alpha", "-")] + [(10000 + i, "alpha", "-") for i in range(600)]
    gh.commit_files(REPO, "main", {PAGE_PATH: page(rows + [(99999, "alpha", "-")])})
    run = run_github(gh, keps(count=600), cfg)
    body = gh.pull(1)["body"]
    assert len(body) <= prmod.BODY_LIMIT == 60_000 and run.url.endswith("/pull/1")
    table = [line for line in body.split("\n") if line.startswith("| [")]
    assert table and all(line.endswith(" |") for line in table)
    assert 0 < len(table) < 601  # one table row per page row (stage and beta of each)
    assert (
        f"\n\n_{601 - len(table)} more changes left out to keep this text short enough for a pull request; "
        "see the JSON report._\n\n<details><summary>Report only (not applied) (1)</summary>\n\n_1 more "
        "findings left out to keep this text short enough for a pull request; see the JSON report._\n\n"
        "</details>\n<details><summary>Controls</summary>\n\n_5 more controls left out" in body
    )
    # a collapsed section that lost all its rows keeps its summary line and its "left out" line
    assert [line for line in body.split("\n") if line.startswith("### ")] == ["### Graduations", "### Changes"]
    assert body.count("<details>") == body.count("</details>") == 2
    assert gh.read_file(REPO, BRANCH, PAGE_PATH).count("implementable / beta") == 601


def test_human_text_shrinks_the_changelog_budget(gh, cfg):
    opened(gh, cfg)
    human = "h" * 50_000
    gh.pull(1)["body"] = human + "\n\n" + gh.pull(1)["body"]
    rows = [(4671, "alpha", "-")] + [(10000 + i, "alpha", "-") for i in range(300)]
    gh.commit_files(REPO, "main", {PAGE_PATH: page(rows)})
    run_github(gh, keps(count=300), cfg)
    body = gh.pull(1)["body"]
    assert body.startswith(human + "\n\n") and len(body) <= prmod.BODY_LIMIT
    assert "left out to keep this text short enough for a pull request" in body


def _pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


@pytest.mark.parametrize("as_file", [False, True])
def test_github_app_auth(gh, cfg, tmp_path, as_file):
    pem = _pem()
    env = {"KEP_SYNC_APP_ID": "123"}
    if as_file:
        (tmp_path / "app.pem").write_text(pem)
        env["KEP_SYNC_APP_PRIVATE_KEY_FILE"] = str(tmp_path / "app.pem")
    else:
        env["KEP_SYNC_APP_PRIVATE_KEY"] = pem
    run = run_github(gh, keps(), cfg, env=env)
    assert (
        run.requests == [("GET", f"{R}/installation"), ("POST", "/app/installations/4242/access_tokens")] + READS + OPEN
        and run.count == 12
    )
    assert gh.jwt_claims[0]["iss"] == "123"
    assert all(h.startswith("token ghs_fake") or h.startswith("Bearer ghs_fake") for h in gh.auth_headers[2:])
    head = gh.branch_sha(REPO, BRANCH)
    assert gh.commits[head]["verified"] is True and gh.pull(1)["user"] == "kep-sync[bot]"


def test_missing_credentials_is_a_config_error(gh, cfg):
    with pytest.raises(ConfigError, match="GITHUB_TOKEN, or KEP_SYNC_APP_ID"):
        run_github(gh, keps(), cfg, env={})
    with pytest.raises(ConfigError, match="KEP_SYNC_APP_PRIVATE_KEY_FILE"):
        run_github(gh, keps(), cfg, env={"KEP_SYNC_APP_ID": "1"})
    with pytest.raises(ConfigError, match=r"not a usable RSA private key \(InvalidKeyError\)$"):
        run_github(gh, keps(), cfg, env={"KEP_SYNC_APP_ID": "1", "KEP_SYNC_APP_PRIVATE_KEY": "not-a-key"})
    with pytest.raises(ConfigError, match="nope.pem: cannot read"):
        run_github(gh, keps(), cfg, env={"KEP_SYNC_APP_ID": "1", "KEP_SYNC_APP_PRIVATE_KEY_FILE": "/nope.pem"})
    assert gh.requests == []


def test_an_unusable_key_file_is_named_by_its_variable_and_path(gh, cfg, tmp_path):
    (tmp_path / "k.pem").write_text("not-a-key")
    env = {"KEP_SYNC_APP_ID": "1", "KEP_SYNC_APP_PRIVATE_KEY_FILE": str(tmp_path / "k.pem")}
    with pytest.raises(ConfigError) as err:
        run_github(gh, keps(), cfg, env=env)
    assert str(err.value) == (
        f"KEP_SYNC_APP_PRIVATE_KEY_FILE: {tmp_path / 'k.pem'}: not a usable RSA private key (InvalidKeyError)"
    )


def test_actions_token_warns_that_workflows_will_not_run(gh, cfg):
    env = {"GITHUB_ACTIONS": "true", "GITHUB_TOKEN": "ghs_" + "a" * 36}
    with structlog.testing.capture_logs() as logs:
        run_github(gh, keps(), cfg, env=env)
    warnings = [e for e in logs if e["log_level"] == "warning"]
    assert len(warnings) == 1 and "do not trigger other workflows" in warnings[0]["event"]
    assert "ghs_" not in repr(logs)
    with structlog.testing.capture_logs() as logs:
        run_github(gh, keps(), cfg)  # a PAT: no warning
    assert [e for e in logs if e["log_level"] == "warning"] == []


def test_cli_publish_github(gh, tmp_path, monkeypatch, capsys):
    from bot.cli import main
    from bot.publish import auth
    from tests.syncutil import kep, write_keps

    write_keps(
        tmp_path / "up",
        kep(4671, "kep-4671", stage="beta", alpha="v1.35", beta="v1.37"),
        kep(5710, "kep-5710", stage="alpha", alpha="v1.35"),
    )
    (tmp_path / "kep-sync.yaml").write_text(
        f"enhancements: {tmp_path / 'up'}\nwiki:\n  repo: {REPO}\n  pages: [{PAGE_PATH}]\n"
        f"github:\n  api_url: {gh.url}\n"
    )
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_" + "c" * 36)
    monkeypatch.setattr(auth, "SECONDS_BETWEEN_WRITES", 0)
    args = ["sync", "--config", str(tmp_path / "kep-sync.yaml"), "--publish", "github"]

    def finished() -> dict:
        captured = capsys.readouterr()
        assert "# Update KEP matrix" in captured.out
        lines = [json.loads(line) for line in captured.err.splitlines()]
        summary = [e for e in lines if e["event"] == "sync finished"]
        return {
            "first": captured.out.splitlines()[0],
            **{k: summary[0][k] for k in ("pages_written", "blocked", "pull_request")},
        }

    url = f"https://github.com/{REPO}/pull/1"
    assert main(args) == 0
    assert gh.pull(1)["state"] == "open" and gh.read_file(REPO, BRANCH, PAGE_PATH) == PROMOTED
    assert ("GET", f"{R}") in [(m, p) for m, p, _ in gh.requests]  # default branch looked up
    title = "# Update KEP matrix: 2 changes in 1 KEP (1 promoted, 1 retargeted)"
    assert finished() == {"first": title, "pages_written": 1, "blocked": False, "pull_request": url}
    assert main(args) == 0  # idempotent: nothing committed
    assert finished() == {"first": title, "pages_written": 0, "blocked": False, "pull_request": url}
    gh.commit_files(REPO, BRANCH, {"notes.md": "human\n"}, "human fix")
    assert main(args) == 0  # blocked by the foreign commit: nothing committed
    assert finished() == {
        "first": f"> **Blocked: nothing was published.** The bot branch `{BRANCH}` has commits "
        "kep-sync did not make (see the log); below is what this run would have "
        "published.",
        "pages_written": 0,
        "blocked": True,
        "pull_request": url,
    }


def test_draft_title_and_config_errors(gh):
    cfg = github_config(gh, draft=True, title="KEP matrix refresh")
    run_github(gh, keps(), cfg)
    assert (gh.pull(1)["draft"], gh.pull(1)["title"]) == (True, "KEP matrix refresh")
    with pytest.raises(ConfigError, match="wiki.repo: required for --publish github"):
        run_github(gh, keps(), cfg.model_copy(update={"wiki": cfg.wiki.model_copy(update={"repo": None})}))
    missing = cfg.model_copy(update={"wiki": cfg.wiki.model_copy(update={"pages": ["nope.md"]})})
    with pytest.raises(ConfigError) as err:
        run_github(gh, keps(), missing)
    assert str(err.value) == f"wiki.pages (--page) 'nope.md': no such file at main of {REPO}"
    for bad, what in (("docs/", "must name a file, not a directory (no trailing '/')"), ("docs", "not a file")):
        gh.commit_files(REPO, "main", {"docs/a.md": "a\n"})
        with pytest.raises(ConfigError) as err:
            run_github(gh, keps(), cfg.model_copy(update={"wiki": cfg.wiki.model_copy(update={"pages": [bad]})}))
        assert str(err.value) == f"wiki.pages (--page) {bad!r}: {what} at main of {REPO}"


# -- --publish none with wiki.repo: a read-only preview through the API ----------------------------------


def _upstream(tmp_path) -> str:
    from tests.syncutil import kep, write_keps

    return str(
        write_keps(
            tmp_path / "up",
            kep(4671, "kep-4671", stage="beta", alpha="v1.35", beta="v1.37"),
            kep(5710, "kep-5710", stage="alpha", alpha="v1.35"),
        )
    )


def test_dry_run_reads_the_pages_from_the_repository_with_zero_writes(gh, cfg, tmp_path, monkeypatch):
    from bot.commands.sync import run_sync
    from bot.http import RequestCounter

    monkeypatch.setenv("GITHUB_TOKEN", "ghp_" + "r" * 36)
    dry = cfg.model_copy(
        update={
            "publish": "none",
            "enhancements": _upstream(tmp_path),
            "wiki": cfg.wiki.model_copy(update={"dir": str(tmp_path / "no-such-wiki")}),
        }
    )
    counter = RequestCounter()
    gh.reset_counters()
    outcome = run_sync(dry, report_path=tmp_path / "report.json", counter=counter)
    assert [(m, p) for m, p, _ in gh.requests] == [("GET", f"{R}/branches/main"), ("GET", f"{R}/contents/{PAGE_PATH}")]
    assert (gh.writes, counter.count, outcome.written, outcome.url, outcome.blocked) == (0, 2, [], "", False)
    assert outcome.plan.changed_pages() == {PAGE_PATH: PROMOTED.encode()}
    assert outcome.plan.changelog.title == "Update KEP matrix: 2 changes in 1 KEP (1 promoted, 1 retargeted)"
    assert gh.branch_sha(REPO, BRANCH) is None and gh.repos[REPO]["pulls"] == {}
    assert (tmp_path / "report.json").is_file() and not (tmp_path / "no-such-wiki").exists()


def test_cli_dry_run_of_a_github_wiki_prints_the_changelog_anonymously(tmp_path, monkeypatch, capsys):
    from bot.cli import main
    from tests.fakegithub import FakeGitHub

    for name in ("GITHUB_TOKEN", "GITHUB_TOKEN_FILE", "KEP_SYNC_APP_ID"):
        monkeypatch.delenv(name, raising=False)
    with FakeGitHub(require_auth=False) as fake:
        fake.seed_repo(REPO, {PAGE_PATH: PAGE})
        (tmp_path / "kep-sync.yaml").write_text(
            f"enhancements: {_upstream(tmp_path)}\nwiki:\n  repo: {REPO}\n  pages: [{PAGE_PATH}]\n"
            f"github:\n  api_url: {fake.url}\n"
        )
        assert main(["sync", "--config", str(tmp_path / "kep-sync.yaml"), "--publish", "none"]) == 0
        assert [(m, p) for m, p, _ in fake.requests] == [
            ("GET", R),
            ("GET", f"{R}/branches/main"),
            ("GET", f"{R}/contents/{PAGE_PATH}"),
        ]
        assert fake.writes == 0 and set(fake.auth_headers) == {None}
    out = capsys.readouterr().out
    assert out.startswith("# Update KEP matrix: 2 changes in 1 KEP (1 promoted, 1 retargeted)\n\n")
    assert "[4671](https://kep.k8s.io/4671)" in out


@pytest.mark.parametrize("publish", ["github", "none"])
def test_cli_missing_page_exits_2_naming_wiki_pages(gh, tmp_path, monkeypatch, capsys, publish):
    from bot.cli import main
    from tests.syncutil import kep, write_keps

    write_keps(tmp_path / "up", kep(4671, "kep-4671", stage="beta", alpha="v1.35", beta="v1.37"))
    (tmp_path / "kep-sync.yaml").write_text(
        f"enhancements: {tmp_path / 'up'}\nwiki:\n  repo: {REPO}\n  base: main\n  pages: [gone.md]\n"
        f"github:\n  api_url: {gh.url}\n"
    )
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_" + "c" * 36)
    assert main(["sync", "--config", str(tmp_path / "kep-sync.yaml"), "--publish", publish]) == 2
    assert capsys.readouterr().err.endswith(f"wiki.pages (--page) 'gone.md': no such file at main of {REPO}\n")
    assert gh.writes == 0
