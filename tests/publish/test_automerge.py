"""Automerge (``pull_request.automerge``) end to end on the fake GitHub: merged only when every rule holds,
else left open with the reason in the body and the outcome, and tried again next run."""

from __future__ import annotations

import pytest

from bot.commands.sync import run_report
from bot.config.sections import AutomergeConfig
from bot.model.kep import Problem
from bot.plan.automerge import plan_holds
from bot.plan.evidence.gates import SHIPPED, Mark
from bot.publish import pull_request as prmod
from bot.publish.backend import Publication
from tests.publishutil import (
    BRANCH,
    PAGE_PATH,
    PROMOTED,
    REPO,
    fresh_logging,  # noqa: F401  (autouse fixture)
    github_config,
    run_github,
)
from tests.syncutil import kep, snapshot

RULES = {"enabled": True, "kinds": ["promoted", "retargeted"], "confirmed": []}


def keps():
    """Upstream with nothing that needs a look: 4671 promoted to beta in v1.37, its latest-milestone v1.37."""
    return snapshot(
        kep(4671, "kep-4671", stage="beta", alpha="v1.35", beta="v1.37", latest="v1.37"),
        kep(5710, "kep-5710", stage="alpha", alpha="v1.35"),
    )


WAITING = "left open: waiting for the checks of the new commit; merged on a later run when every rule holds"


@pytest.fixture
def auto(gh):
    return github_config(gh, automerge=RULES)


def line(gh) -> str:
    return prmod.automerge_line(gh.pull(1)["body"]).strip()


def green(gh, *contexts: str) -> str:
    head = gh.branch_sha(REPO, BRANCH)
    for name in contexts or ("ci",):
        gh.set_status(REPO, head, name, "success")
    gh.add_check_run(REPO, head, "tests")
    return head


def test_a_routine_pull_request_is_merged_on_the_run_after_its_checks_pass(gh, auto):
    first = run_github(gh, keps(), auto)
    assert (first.url, first.automerge) == (f"https://github.com/{REPO}/pull/1", WAITING)
    assert line(gh) == f"{prmod.AUTOMERGE_TAG}**Automerge**: {WAITING}"
    head = green(gh)
    merged = run_github(gh, keps(), auto)
    assert merged.automerge == "merged"
    pr = gh.pull(1)
    assert (pr["state"], pr["merged"]) == ("closed", True)
    assert gh.commits[gh.branch_sha(REPO, "main")]["parents"][1] == head
    assert gh.read_file(REPO, "main", PAGE_PATH) == PROMOTED
    assert gh.branch_sha(REPO, BRANCH) is None
    assert ("PUT", f"/repos/{REPO}/pulls/1/merge") in merged.requests
    after = run_github(gh, keps(), auto)
    assert (after.url, after.written, after.writes, after.automerge) == ("", [], 0, "")
    assert len(gh.repos[REPO]["pulls"]) == 1


def test_turned_off_in_the_config_its_line_leaves_the_body_once(gh, auto):
    run_github(gh, keps(), auto)
    assert line(gh) == f"{prmod.AUTOMERGE_TAG}**Automerge**: {WAITING}"
    off = github_config(gh)
    first = run_github(gh, keps(), off)
    assert (line(gh), first.automerge, first.writes) == ("", "", 1)
    again = run_github(gh, keps(), off)
    assert (again.writes, gh.pull(1)["state"]) == (0, "open")


@pytest.mark.parametrize(
    ("setup", "reason"),
    [
        (lambda gh, head: gh.set_status(REPO, head, "ci", "pending"), "check ci is pending"),
        (lambda gh, head: gh.set_status(REPO, head, "ci", "failure"), "check ci is failure"),
        (lambda gh, head: gh.add_check_run(REPO, head, "lint", "in_progress", None), "check lint is in_progress"),
        (lambda gh, head: gh.add_check_run(REPO, head, "lint", "completed", "failure"), "check lint is failure"),
        (lambda gh, head: gh.protect(REPO, "main", ["e2e"]), "required check e2e has not reported"),
        (lambda gh, head: gh.protect(REPO, "main", [], reviews=1), "1 approving review required, 0 given"),
    ],
)
def test_a_check_or_review_that_does_not_pass_leaves_it_open(gh, auto, setup, reason):
    run_github(gh, keps(), auto)
    setup(gh, green(gh))
    held = run_github(gh, keps(), auto)
    assert held.automerge == f"left open: {reason}"
    assert line(gh) == f"{prmod.AUTOMERGE_TAG}**Automerge**: left open: {reason}"
    assert (gh.pull(1)["state"], ("PUT", f"/repos/{REPO}/pulls/1/merge") in held.requests) == ("open", False)
    again = run_github(gh, keps(), auto)  # the same reason: the body is not edited again
    assert (again.automerge, again.writes) == (held.automerge, 0)


def test_an_approving_review_lets_it_merge(gh, auto):
    run_github(gh, keps(), auto)
    green(gh)
    gh.protect(REPO, "main", ["ci"], reviews=1)
    assert run_github(gh, keps(), auto).automerge == "left open: 1 approving review required, 0 given"
    gh.add_review(1, "alice", "APPROVED")
    assert run_github(gh, keps(), auto).automerge == "merged"


def test_a_refusal_of_the_merge_api_is_shown_and_tried_again(gh, auto):
    run_github(gh, keps(), auto)
    green(gh)
    gh.fail_next("PUT", r"/pulls/1/merge$", 405, message="Base branch was modified. Review and try the merge again.")
    held = run_github(gh, keps(), auto)
    assert held.automerge == (
        "left open: GitHub refused the merge (HTTP 405: Base branch was modified. Review and try the merge "
        "again.); tried again next run"
    )
    assert gh.pull(1)["state"] == "open" and "HTTP 405" in line(gh)
    assert run_github(gh, keps(), auto).automerge == "merged"


def test_a_human_commit_on_the_branch_leaves_it_open(gh, auto):
    run_github(gh, keps(), auto)
    green(gh)
    gh.commit_files(REPO, BRANCH, {"notes.md": "human\n"})
    held = run_github(gh, keps(), auto)
    assert (held.blocked, held.automerge) == (True, "left open: the branch holds a commit kep-sync did not make")
    assert gh.pull(1)["state"] == "open"


def test_changes_of_a_kind_not_allowed_or_not_confirmed_leave_it_open(gh):
    kinds = github_config(gh, automerge={"enabled": True, "kinds": ["retargeted"], "confirmed": []})
    run_github(gh, keps(), kinds)
    green(gh)
    assert run_github(gh, keps(), kinds).automerge == (
        "left open: KEP 4671 stage: a promoted change is not in pull_request.automerge.kinds"
    )
    defaults = github_config(gh, automerge=True)
    assert run_github(gh, keps(), defaults).automerge == (
        "left open: KEP 4671 stage: promoted, not confirmed by a release note or the gate list"
    )


def test_by_default_every_kind_allowed_needs_its_evidence(gh, auto):
    plan = run_github(gh, keps(), auto).plan
    rules = AutomergeConfig(enabled=True)
    base = plan.changes[0]._replace(evidence=(), shipped=None, flags=())
    shipped = Mark(SHIPPED, "Gate", "v1.37", "the gate list shows Gate beta in v1.37")
    for kind in ("retargeted", "status", "promoted"):
        bare = base._replace(kind=kind)
        assert plan_holds(plan._replace(changes=[bare]), rules.kinds, rules.confirmed) == [
            f"KEP 4671 {bare.field}: {kind}, not confirmed by a release note or the gate list"
        ]
        backed = bare._replace(shipped=shipped)
        assert plan_holds(plan._replace(changes=[backed]), rules.kinds, rules.confirmed) == []


def off_command(gh, config):
    """Open the pull request with green checks, then a maintainer comments ``/kep-sync automerge off``; the run
    after it and the bot's replies."""
    run_github(gh, keps(), config)
    green(gh)
    gh.set_role(REPO, "maintainer", "write")
    gh.add_comment(1, "/kep-sync automerge off", user="maintainer")
    return run_github(gh, keps(), config), [c["body"] for c in gh.comments.values() if c["user"] == "kep-bot"]


def test_the_automerge_off_command_keeps_it_open(gh, auto):
    held, replies = off_command(gh, auto)
    assert held.automerge == "left open: turned off by /kep-sync automerge off"
    assert prmod.parse_state(gh.pull(1)["body"]).automerge == "off"
    assert replies[-1].endswith("**Done**: kep-sync will not merge this pull request; a reviewer merges it.")
    assert run_github(gh, keps(), auto).automerge == "left open: turned off by /kep-sync automerge off"


def test_without_the_key_the_command_is_unknown_and_nothing_is_merged(gh, cfg):
    run, replies = off_command(gh, cfg)
    assert (run.automerge, gh.pull(1)["state"], line(gh)) == ("", "open", "")
    assert "unknown command `automerge`" in replies[-1]


def test_plan_holds_reads_needs_a_look_flags_problems_and_kinds(gh, auto):
    plan = run_github(gh, keps(), auto).plan
    allowed = ["promoted", "retargeted"]
    assert plan_holds(plan, allowed, []) == []
    contradicted = plan._replace(needs_a_look=("- ✗ KEP 4671 beta v1.37: the note calls it alpha", "- ↺ 1 released"))
    assert plan_holds(contradicted, allowed, []) == ["Needs a look has 2 items"]
    left = plan._replace(problems=[Problem("docs/matrix.md", "", "line 9: row left as is")])
    assert plan_holds(left, allowed, []) == ["1 problem (rows left as is or values not trusted)"]
    flagged = plan._replace(changes=[plan.changes[0]._replace(flags=("released milestone rewritten",))])
    assert plan_holds(flagged, allowed, [])[0].endswith("carries a flag (released milestone rewritten)")


def test_the_report_says_what_automerge_did(gh, auto):
    publication = Publication(keps_plan := run_github(gh, keps(), auto).plan, [], "u", automerge="left open: x")
    assert run_report(auto, None, keps_plan, publication)["automerge"] == "left open: x"
    assert "automerge" not in run_report(auto, None, keps_plan, publication._replace(automerge=""))


def test_every_page_of_the_commit_statuses_is_read(gh, auto):
    run_github(gh, keps(), auto)
    head = green(gh, *(f"ci-{n:03}" for n in range(130)))
    gh.set_status(REPO, head, "late", "failure")  # the 131st status: on the second page of 100
    held = run_github(gh, keps(), auto)
    assert held.automerge == "left open: check late is failure"
    assert held.requests.count(("GET", f"/repos/{REPO}/commits/{head}/status")) == 2
