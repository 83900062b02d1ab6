"""Commands in comments on the bot's pull request, end to end: the real PyGithub client against the fake GitHub.

Each scenario opens the bot pull request (4671 promoted to beta in v1.37), adds comments as people would,
runs kep-sync again and asserts the branch, the state marker, the replies and the exact API calls.
"""

from __future__ import annotations

import pytest

from bot.publish import comment_commands as cmd
from bot.publish import pull_request as prmod
from tests.fakegithub import REFUSED
from tests.gitutil import commit, make_repo
from tests.publishutil import (
    BRANCH,
    COMMIT,
    PAGE,
    PAGE_PATH,
    READS,
    READS_PR,
    REPO,
    UPDATE,
    R,
    fresh_logging,  # noqa: F401  (autouse fixture)
    github_config,
    keps,
    run_github,
)
from tests.syncutil import kep

ROW_4671 = "| 4671-kep-4671 | scheduling | implementable / alpha | v1.35 / - / - | groups |"
PROMOTED_ROW = "| 4671-kep-4671 | scheduling | implementable / beta | v1.35 / v1.37 / - | groups |"
LISTED = [("GET", f"{R}/issues/1/comments")]


@pytest.fixture
def gh(fake_github):
    fake_github.base = fake_github.seed_repo(REPO, {PAGE_PATH: PAGE})
    return fake_github


@pytest.fixture
def cfg(gh):
    return github_config(gh)


def opened(gh, cfg) -> str:
    """The first run opens pull request #1; returns its head."""
    assert run_github(gh, keps(), cfg).url.endswith("/pull/1")
    return gh.branch_sha(REPO, BRANCH)


def replies(gh, after: int) -> list[str]:
    return [
        c["body"]
        for cid, c in sorted(gh.comments.items())
        if cid > after and c["user"] != "alice" and c["user"] != "mallory"
    ]


def permission(user: str) -> tuple[str, str]:
    return ("GET", f"{R}/collaborators/{user}/permission")


def refused(user: str) -> list[tuple[str, str]]:
    """The requests of a run that refuses ``user``'s one command: the reads, the role asked once, the pull
    request's body refreshed and the one answer posted; nothing committed."""
    return READS_PR + [permission(user), ("PATCH", f"{R}/pulls/1"), ("POST", f"{R}/issues/1/comments")]


def test_a_run_with_the_pull_request_open_and_no_comment_adds_exactly_one_request(gh, cfg):
    opened(gh, cfg)
    run = run_github(gh, keps(), cfg)
    assert run.requests == READS + LISTED and (run.count, run.writes) == (4, 0)


def test_ignore_from_a_writer_adds_the_marker_in_a_bot_commit_replies_and_lists_it_as_ignored(gh, cfg):
    first = opened(gh, cfg)
    gh.set_role(REPO, "alice", "write")
    cid = gh.add_comment(1, "/kep-sync ignore 4671 beta\nThe v1.37 target is not final.", "alice")
    run = run_github(gh, keps(), cfg)
    assert run.requests == READS_PR + [permission("alice")] + COMMIT + [
        ("PATCH", f"{R}/git/refs/heads/{BRANCH}"),
        ("PATCH", f"{R}/pulls/1"),
        ("POST", f"{R}/issues/1/comments"),
    ]
    head = gh.branch_sha(REPO, BRANCH)
    assert gh.commits[head]["parents"] == [first] and gh.commits[head]["login"] == "kep-bot"
    marked = (
        "| 4671-kep-4671 <!-- kep-sync: ignore beta --> | scheduling | implementable / beta | v1.35 / - / - | groups |"
    )
    assert gh.read_file(REPO, BRANCH, PAGE_PATH) == PAGE.replace(ROW_4671, marked)
    assert gh.commits[head]["message"].split("\n\nKep-Sync-Fingerprint: ")[0] == (
        "Update KEP matrix: 1 change in 1 KEP (1 promoted)\n\n- KEP-4671 stage: alpha -> beta\n\n"
        f"Source: test@{'0123456789abcdef' * 2}01234567\n\nIgnore marker added on request: KEP 4671 beta"
    )
    body = gh.pull(1)["body"]
    assert "| beta | - → v1.37 | row marker |" in body
    assert "- KEP 4671: `<!-- kep-sync: ignore beta -->` (docs/matrix.md line 7)" in body
    state = prmod.parse_state(body)
    assert (state.seen, state.ignore, state.head) == (str(cid), "4671.beta", head)
    assert replies(gh, cid) == [
        "> `/kep-sync ignore 4671 beta` (@alice)\n\n**Done**: kep-sync added `<!-- kep-sync: ignore beta -->` to the "
        f"row of KEP 4671 (docs/matrix.md line 7) in commit `{head[:12]}`. The cell stays as the page has it, its "
        'drift is listed under "Ignored", and the marker lands in the page with this pull request.'
    ]
    again = run_github(gh, keps(), cfg)  # carried out once: the comment is listed again (since) and skipped
    assert again.requests == READS_PR and again.writes == 0 and gh.branch_sha(REPO, BRANCH) == head
    assert len(replies(gh, cid)) == 1


def test_a_command_given_twice_and_an_edited_command_are_carried_out_once(gh, cfg):
    opened(gh, cfg)
    gh.set_role(REPO, "alice", "admin")
    one = gh.add_comment(1, "/kep-sync ignore 4671", "alice")
    two = gh.add_comment(1, "/kep-sync ignore KEP-4671", "alice")
    run = run_github(gh, keps(), cfg)
    assert run.requests.count(permission("alice")) == 1 and run.requests.count(("POST", f"{R}/git/commits")) == 1
    text = gh.read_file(REPO, BRANCH, PAGE_PATH)
    assert text.count("<!-- kep-sync: ignore -->") == 1 and text == PAGE.replace(
        ROW_4671, ROW_4671.replace("4671-kep-4671 ", "4671-kep-4671 <!-- kep-sync: ignore --> ")
    )
    assert [r.split("\n", 1)[0] for r in replies(gh, two)] == [
        "> `/kep-sync ignore 4671` (@alice)",
        "> `/kep-sync ignore KEP-4671` (@alice)",
    ]
    head, body = gh.branch_sha(REPO, BRANCH), gh.pull(1)["body"]
    gh.edit_comment(one, "/kep-sync regenerate")  # an edit is no new command
    again = run_github(gh, keps(), cfg)
    assert again.requests == READS_PR and again.writes == 0
    assert (gh.branch_sha(REPO, BRANCH), gh.pull(1)["body"], len(replies(gh, two))) == (head, body, 2)


def test_a_command_from_a_user_without_write_access_is_answered_and_not_carried_out(gh, cfg):
    head = opened(gh, cfg)
    gh.set_role(REPO, "mallory", "triage")
    cid = gh.add_comment(1, "/kep-sync ignore 4671", "mallory")
    run = run_github(gh, keps(), cfg)
    assert run.requests == refused("mallory")
    assert gh.branch_sha(REPO, BRANCH) == head and gh.read_file(REPO, BRANCH, PAGE_PATH) == PAGE.replace(
        ROW_4671, PROMOTED_ROW
    )
    assert replies(gh, cid) == [
        "> `/kep-sync ignore 4671` (@mallory)\n\n**Not carried out**: @mallory has the "
        "`triage` role on acme/wiki; commands need write, maintain or admin access to the "
        "wiki repository."
    ]
    assert prmod.parse_state(gh.pull(1)["body"])._replace(seen="", since="") == prmod.parse_state(
        gh.pull(1)["body"]
    )._replace(seen="", since="", ignore="")
    again = run_github(gh, keps(), cfg)
    assert again.requests == READS_PR and again.writes == 0


def test_unknown_commands_and_a_kep_in_no_row_are_answered(gh, cfg):
    head = opened(gh, cfg)
    gh.set_role(REPO, "alice", "maintain")
    first = gh.add_comment(1, "/kep-sync frobnicate", "alice")
    gh.add_comment(1, "/kep-sync ignore 9999", "alice")
    gh.add_comment(1, "/kep-sync ignore 4671 gamma", "alice")
    gh.add_comment(1, "Thanks! /kep-sync is great", "alice")  # not a command: it does not start with /kep-sync
    run_github(gh, keps(), cfg)
    assert gh.branch_sha(REPO, BRANCH) == head
    assert [r.split("\n\n", 1)[1] for r in replies(gh, first) if r.startswith("> ")] == [
        f"**Not carried out**: unknown command `frobnicate`; the commands are {cmd.USAGE}.",
        "**Not carried out**: KEP 9999 is in no row of docs/matrix.md.",
        "**Not carried out**: unknown field `gamma`; fields: status, stage, alpha, beta, stable, feature_gates, shipped.",
    ]


def test_regenerate_from_a_maintainer_replaces_a_foreign_commit(gh, cfg):
    opened(gh, cfg)
    foreign = gh.commit_files(REPO, BRANCH, {PAGE_PATH: "vandalised\n"}, "human edit")
    gh.set_role(REPO, "alice", "maintain")
    cid = gh.add_comment(1, "/kep-sync regenerate", "alice")
    run = run_github(gh, keps(), cfg)
    recorded = prmod.parse_state(gh.pull(1)["body"])
    assert not run.blocked and run.written == [PAGE_PATH]
    head = gh.branch_sha(REPO, BRANCH)
    assert head != foreign and gh.commits[head]["parents"] == [gh.base] and recorded.head == head
    assert gh.read_file(REPO, BRANCH, PAGE_PATH) == PAGE.replace(ROW_4671, PROMOTED_ROW)
    assert ("DELETE", f"{R}/issues/1/labels/{prmod.REGENERATE_LABEL}") not in run.requests
    assert replies(gh, cid) == [
        "> `/kep-sync regenerate` (@alice)\n\n**Done**: kep-sync replaced the branch with "
        f"a fresh commit from the base: `{head[:12]}`."
    ]


def test_explain_replies_with_the_field_history(gh, cfg, tmp_path):
    up = tmp_path / "enhancements"
    first = make_repo(up, dict([kep(4671, "kep-4671", stage="alpha", alpha="v1.35")]))
    second = commit(
        up, dict([kep(4671, "kep-4671", stage="beta", alpha="v1.35", beta="v1.37")]), "Promote 4671 to beta (#123)"
    )
    cfg = cfg.model_copy(update={"enhancements": str(up), "cache_dir": str(tmp_path / "cache")})
    opened(gh, cfg)
    gh.set_role(REPO, "alice", "write")
    cid = gh.add_comment(1, "/kep-sync explain 4671", "alice")
    run = run_github(gh, keps(), cfg)
    assert run.requests == READS_PR + [
        permission("alice"),
        ("PATCH", f"{R}/pulls/1"),
        ("POST", f"{R}/issues/1/comments"),
    ]
    path = "keps/sig-scheduling/4671-kep-4671/kep.yaml"
    assert replies(gh, cid) == [
        "> `/kep-sync explain 4671` (@alice)\n\nField history of KEP 4671 (as `kep-sync history 4671` prints it):"
        f"\n\n```\nKEP 4671: {path} (7 changes)\n"
        f"2026-01-02       -  {first[:12]}  path: - -> {path}\n"
        f"2026-01-02       -  {first[:12]}  status: - -> implementable\n"
        f"2026-01-02       -  {first[:12]}  stage: - -> alpha\n"
        f"2026-01-02       -  {first[:12]}  latest-milestone: - -> v1.36\n"
        f"2026-01-02       -  {first[:12]}  milestone.alpha: - -> v1.35\n"
        f"2026-01-02    #123  {second[:12]}  stage: alpha -> beta\n"
        f"2026-01-02    #123  {second[:12]}  milestone.beta: - -> v1.37\n```"
    ]


def test_explain_on_a_source_without_history_says_why(gh, cfg):
    opened(gh, cfg)
    gh.set_role(REPO, "alice", "write")
    cid = gh.add_comment(1, "/kep-sync explain 4671", "alice")
    cfg = cfg.model_copy(update={"enhancements": "github:kubernetes/enhancements"})
    run_github(gh, keps(), cfg)
    assert replies(gh, cid) == [
        "> `/kep-sync explain 4671` (@alice)\n\n**Not carried out**: enhancements (--enhancements) "
        "'github:kubernetes/enhancements': history needs git history: a github: source is read as one tarball, "
        "without history; pass a clone, a git URL (`https://github.com/OWNER/REPO.git`) or a bundle."
    ]


@pytest.mark.parametrize("fields", ["", " beta"])
def test_an_ignore_marker_merged_keeps_ignoring_a_new_upstream_value(gh, cfg, fields):
    opened(gh, cfg)
    gh.set_role(REPO, "alice", "write")
    gh.add_comment(1, f"/kep-sync ignore 4671{fields}", "alice")
    run_github(gh, keps(), cfg)
    gh.close_pull(1, merged=True)
    merged = gh.read_file(REPO, "main", PAGE_PATH)
    assert f"<!-- kep-sync: ignore{fields} -->" in merged
    run = run_github(gh, keps(beta_4671="v1.38"), cfg)  # upstream moves the beta target again
    assert (run.url, run.written, run.writes) == ("", [], 0) and sorted(gh.repos[REPO]["pulls"]) == [1]
    beta = [c for c in run.plan.changes if (c.kep_id, c.field) == ("4671", "beta")]
    assert [(c.new, c.applied, c.ignored) for c in beta] == [("v1.38", False, "page")]
    assert gh.read_file(REPO, "main", PAGE_PATH) == merged


def test_parse_comment_reads_only_a_leading_command():
    assert cmd.parse_comment(1, "a", "", "Please /kep-sync ignore 4671") is None
    assert cmd.parse_comment(1, "a", "", "/kep-syncx ignore 4671") is None
    assert cmd.parse_comment(1, "a", "", "/kep-sync ignore #4671 stable,beta gates\nmore") == cmd.Command(
        1, "a", "", "/kep-sync ignore #4671 stable,beta gates", "ignore", 4671, ("beta", "stable", "feature_gates")
    )
    assert cmd.parse_comment(1, "a", "", "/kep-sync").error == f"no command given; the commands are {cmd.USAGE}"
    assert cmd.parse_comment(1, "a", "", "/kep-sync explain").error == (
        "`explain` needs a KEP number, e.g. `/kep-sync explain 4671`"
    )


def test_ignore_rules_round_trip_through_the_state_marker():
    rules = [(4671, ("beta", "stable")), (5598, ()), (4671, ("beta", "stable"))]
    assert cmd.encode_ignores(rules) == "4671.beta.stable-5598"
    assert cmd.decode_ignores("4671.beta.stable-5598-x.y-12.nope") == [(4671, ("beta", "stable")), (5598, ())]
    state = prmod.PrState(fingerprint="f", seen="1234", since="20240102T030405Z", ignore="4671.beta")
    assert prmod.parse_state(prmod.render_section("x", state)) == state
    assert cmd.since_query("20240102T030405Z") == "2024-01-02T03:04:04Z" and cmd.since_query("") is None


@pytest.mark.parametrize(
    ("permission_", "role", "allowed"),
    [
        ("admin", "admin", True),
        ("write", "maintain", True),
        ("write", "write", True),
        ("read", "triage", False),
        ("read", "read", False),
        ("none", "none", False),
        ("write", "custom-writer", True),
        ("", "", False),
    ],
)
def test_who_may_give_commands(permission_, role, allowed):
    assert cmd.may_command(permission_, role) is allowed


def test_the_controls_footer_lists_the_commands_only_where_they_work(cfg):
    from bot.plan.changelog.controls import controls

    lines = controls(cfg.steering())
    assert lines[3] == (
        "- **Commands** (a comment that starts with one; from people with write access to the wiki repository; "
        "read on the next run (in GitHub Actions the comment starts one), carried out once, answered in a reply): "
        "`/kep-sync ignore <KEP> [fields...]` adds the ignore marker to the KEP's row in this pull request, "
        "`/kep-sync regenerate` acts as the label, `/kep-sync explain <KEP>` replies with the KEP's field history."
    )
    assert not any("/kep-sync" in line for line in controls(cfg.model_copy(update={"publish": "git"}).steering()))


def test_with_wiki_base_unset_the_listed_pull_request_names_the_default_branch(gh, cfg):
    cfg = cfg.model_copy(update={"wiki": cfg.wiki.model_copy(update={"base": None})})
    first = run_github(gh, keps(), cfg)
    assert first.requests[:2] == [("GET", f"{R}/pulls"), ("GET", R)]  # no pull request yet: read the repository
    run = run_github(gh, keps(), cfg)
    assert run.requests == READS_PR and run.writes == 0


def test_a_reply_quotes_a_huge_command_bounded_and_a_refused_reply_loses_no_other(gh, cfg):
    opened(gh, cfg)
    gh.set_role(REPO, "alice", "write")
    huge = gh.add_comment(1, "/kep-sync regenerate " + "x" * 65_515, "alice")
    second = gh.add_comment(1, "/kep-sync ignore 4671 beta", "alice")
    gh.fail_next("POST", r"/issues/1/comments$", 422, message="Validation Failed")  # the first reply is refused
    run = run_github(gh, keps(), cfg)
    assert run.requests.count(("POST", f"{R}/issues/1/comments")) == 2
    posted = replies(gh, second)
    assert [r.split("\n\n", 1)[0] for r in posted] == ["> `/kep-sync ignore 4671 beta` (@alice)"]
    assert prmod.parse_state(gh.pull(1)["body"]).seen == str(second)
    assert cmd.parse_comment(huge, "alice", "", "/kep-sync regenerate " + "x" * 65_515).error == (
        "`regenerate` takes no arguments; got `" + "x" * 80 + "…`"
    )
    assert cmd.not_done(cmd.parse_comment(huge, "alice", "", "/kep-sync regenerate " + "x" * 65_515), "no") == (
        "> `/kep-sync regenerate " + "x" * 179 + "…` (@alice)\n\n**Not carried out**: no."
    )


def test_reply_text_keeps_a_users_words_inert():
    for body, error in (
        ("/kep-sync regenerate x` @acme/team `y", "`regenerate` takes no arguments; got ``x` @acme/team `y``"),
        ("/kep-sync explain 1 `@acme/team`", "`explain` takes one KEP; got `` `@acme/team` `` after it"),
        ("/kep-sync fro`b @x", "unknown command ``fro`b``; the commands are " + cmd.USAGE),
        (
            "/kep-sync ignore 1 s`t",
            "unknown field ``s`t``; fields: status, stage, alpha, beta, stable, feature_gates, shipped",
        ),
    ):
        assert cmd.parse_comment(1, "a", "", body).error == error


def test_chat_comments_move_the_read_position_when_the_run_writes_anyway(gh, cfg):
    opened(gh, cfg)
    chat = [gh.add_comment(1, f"looks good {i}", "bob") for i in range(6)]
    quiet = run_github(gh, keps(), cfg)  # nothing to write: no request added to move it
    assert quiet.requests == READS_PR and quiet.writes == 0
    assert prmod.parse_state(gh.pull(1)["body"]).seen == ""
    moved = run_github(gh, keps(beta_4671="v1.38"), cfg)  # upstream moved: the body update carries it
    assert moved.requests == READS_PR + UPDATE
    assert prmod.parse_state(gh.pull(1)["body"]).seen == str(chat[-1])
    again = run_github(gh, keps(beta_4671="v1.38"), cfg)
    assert again.requests == READS_PR and again.writes == 0


def test_refusals_are_capped_per_run_and_roles_are_read_for_ten_authors_the_rest_wait(gh, cfg):
    opened(gh, cfg)
    gh.set_role(REPO, "m1", "read")
    gh.set_role(REPO, "m2", "write")
    first = gh.add_comment(1, "/kep-sync regenerate", "m1")
    gh.add_comment(1, "/kep-sync regenerate", "m1")
    outsiders = [f"outsider{i}" for i in range(30)]
    ids = {}
    for user in outsiders:
        gh.set_role(REPO, user, "none")
        ids[user] = gh.add_comment(1, "/kep-sync regenerate", user, association="NONE")
    last = gh.add_comment(1, "/kep-sync explain 4671", "m2", association="CONTRIBUTOR")
    run = run_github(gh, keps(), cfg)
    assert (
        run.requests
        == READS_PR
        + [permission(u) for u in ["m1", *outsiders[:9]]]  # cmd.MAX_ROLE_READS authors
        + [("PATCH", f"{R}/pulls/1")]
        + [("POST", f"{R}/issues/1/comments")] * 3
    )
    assert [r.split("\n\n", 1)[1] for r in replies(gh, first) if r.startswith("> ")] == [
        "**Not carried out**: @m1 has the `read` role on acme/wiki; commands need write, maintain or admin access "
        "to the wiki repository.",
        "**Not carried out**: @outsider0 has no role on acme/wiki; commands need write, maintain or admin access "
        "to the wiki repository.",
        "**Not carried out**: @outsider1 has no role on acme/wiki; commands need write, maintain or admin access "
        "to the wiki repository.",
    ]
    assert prmod.parse_state(gh.pull(1)["body"]).seen == str(ids["outsider8"])  # outsider9 and later wait
    asked = [permission(u) for u in ["m1", *outsiders[:9]]]
    for _ in range(3):  # 10 authors a run: outsider9..18, outsider19..28, then outsider29 and m2
        listed = max(gh.comments)  # the replies of earlier runs included
        asked += [r for r in run_github(gh, keps(), cfg).requests if r[1].endswith("/permission")]
    assert asked == [permission(u) for u in ["m1", *outsiders, "m2"]]  # each author asked once
    assert prmod.parse_state(gh.pull(1)["body"]).seen == str(listed) and listed > last
    answered = [r.split(" (@", 1)[1].split(")", 1)[0] for r in replies(gh, first) if r.startswith("> ")]
    assert answered == ["m1", "outsider0", "outsider1", "outsider9", "outsider10", "outsider11"] + [
        "outsider19",
        "outsider20",
        "outsider21",
        "outsider29",
        "m2",
    ]
    assert replies(gh, first)[-1].startswith(
        "> `/kep-sync explain 4671` (@m2)\n\n"
    )  # a CONTRIBUTOR with write access: carried out


def test_a_private_org_member_with_write_access_is_asked_about_and_obeyed(gh, cfg):
    opened(gh, cfg)
    gh.set_role(REPO, "carol", "write")  # a private member: GitHub shows her comments as CONTRIBUTOR
    cid = gh.add_comment(1, "/kep-sync ignore 4671 beta", "carol", association="CONTRIBUTOR")
    run = run_github(gh, keps(), cfg)
    assert run.requests[: len(READS_PR) + 1] == READS_PR + [permission("carol")]
    head = gh.branch_sha(REPO, BRANCH)
    assert replies(gh, cid)[0].startswith(
        "> `/kep-sync ignore 4671 beta` (@carol)\n\n**Done**: kep-sync added `<!-- kep-sync: ignore beta -->` to the "
        f"row of KEP 4671 (docs/matrix.md line 7) in commit `{head[:12]}`."
    )


def test_a_command_whose_authors_role_github_will_not_tell_is_refused_once_and_the_run_goes_on(gh, cfg):
    """HTTP 403 from the collaborator permission API (a token or App that may not read it): the command is not
    carried out, answered once with why, the read position moves past it, and this run and the next publish."""
    head = opened(gh, cfg)
    gh.set_role(REPO, "mallory", REFUSED)
    cid = gh.add_comment(1, "/kep-sync regenerate", "mallory")
    run = run_github(gh, keps(), cfg)
    assert run.requests == refused("mallory")
    assert (run.requests.count(permission("mallory")), gh.branch_sha(REPO, BRANCH)) == (1, head)
    assert replies(gh, cid) == [
        "> `/kep-sync regenerate` (@mallory)\n\n**Not carried out**: GitHub did not tell the role of @mallory on "
        "acme/wiki (HTTP 403), so kep-sync cannot check it; commands need write, maintain or admin access to the "
        "wiki repository, and the token kep-sync runs with must be able to read collaborator permissions."
    ]
    assert prmod.parse_state(gh.pull(1)["body"]).seen == str(cid)
    moved = run_github(gh, keps("v1.36"), cfg)  # upstream moves on: published, the comment not read again
    assert permission("mallory") not in moved.requests and len(replies(gh, cid)) == 1
    assert gh.read_file(REPO, BRANCH, PAGE_PATH) == PAGE.replace(ROW_4671, PROMOTED_ROW.replace("v1.37", "v1.36"))


def test_a_rate_limited_role_read_fails_the_run_and_the_command_waits(gh, cfg):
    """A 403 that is a rate limit says nothing of the author: the run fails (exit 1) and the command is read
    again by a later run, not refused."""
    from bot.errors import PublishError

    opened(gh, cfg)
    gh.set_role(REPO, "alice", "write")
    cid = gh.add_comment(1, "/kep-sync ignore 4671 beta", "alice")
    limit = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "9999999999"}
    gh.fail_next("GET", r"/collaborators/alice/permission$", 403, headers=limit, message="API rate limit exceeded")
    with pytest.raises(PublishError, match="read the role of @alice: HTTP 403 API rate limit exceeded"):
        run_github(gh, keps(), cfg)
    assert replies(gh, cid) == [] and prmod.parse_state(gh.pull(1)["body"]).seen != str(cid)
    run_github(gh, keps(), cfg)
    assert replies(gh, cid)[0].startswith("> `/kep-sync ignore 4671 beta` (@alice)\n\n**Done**")


def test_any_other_refusal_to_tell_a_role_is_answered_with_its_status(gh, cfg):
    opened(gh, cfg)
    cid = gh.add_comment(1, "/kep-sync ignore 4671", "robot")
    gh.fail_next("GET", r"/collaborators/robot/permission$", 422, message="Validation Failed")
    run_github(gh, keps(), cfg)
    assert replies(gh, cid) == [
        "> `/kep-sync ignore 4671` (@robot)\n\n**Not carried out**: GitHub did not tell the role of @robot on "
        "acme/wiki (HTTP 422), so kep-sync cannot check it; commands need write, maintain or admin access to the "
        "wiki repository, and the token kep-sync runs with must be able to read collaborator permissions."
    ]
