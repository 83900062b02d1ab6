"""The JSON report tells what happened (bot/commands/sync.py run_report): ``publish``, ``result``, ``pull_request``,
``pages_written``, ``error``; ``applied`` only for changes in pages this run wrote or committed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import bot.publish.directory as directory
from bot.cli.main import main
from bot.errors import PublishError
from tests.gitutil import commit, git, make_repo
from tests.publishutil import BRANCH, PAGE, PAGE_PATH, git_config, keps, run_git
from tests.syncutil import PAGE as SYNC_PAGE

pytestmark = pytest.mark.usefixtures("_reset_structlog")

SYNC = ["sync", "--enhancements", "enh", "--wiki", "wiki", "--page", "m.md", "--report", "r.json"]


def report(work: Path) -> dict:
    return json.loads((work / "r.json").read_text())


def outcome(data: dict) -> tuple:
    return (
        data["publish"],
        data["result"],
        data["pull_request"],
        data["pages_written"],
        data.get("error"),
        [(c["field"], c["proposed"], c["applied"]) for c in data["changes"]],
    )


def test_publish_none_applies_nothing_but_says_what_it_proposes(work, capsys):
    assert main([*SYNC, "--publish", "none"]) == 0
    assert outcome(report(work)) == (
        "none",
        "ok",
        None,
        [],
        None,
        [("stage", True, False), ("beta", True, False), ("feature_gates", False, False)],
    )


def test_publish_files_applies_the_changes_of_the_pages_it_wrote(work, capsys):
    assert main([*SYNC, "--publish", "files"]) == 0
    assert outcome(report(work)) == (
        "files",
        "ok",
        None,
        ["m.md"],
        None,
        [("stage", True, True), ("beta", True, True), ("feature_gates", False, False)],
    )


def test_a_run_that_fails_while_landing_writes_its_report_and_applies_nothing(work, capsys, monkeypatch):
    def full_disk(wiki_dir, pages, read=None):
        raise PublishError("wiki/m.md: cannot write: No space left on device")

    monkeypatch.setattr(directory, "publish_files", full_disk)
    assert main([*SYNC, "--publish", "files"]) == 1
    assert (
        capsys.readouterr().err.splitlines()[-1] == "kep-sync: error: wiki/m.md: cannot write: No space left on device"
    )
    assert outcome(report(work)) == (
        "files",
        "failed",
        None,
        [],
        "wiki/m.md: cannot write: No space left on device",
        [("stage", True, False), ("beta", True, False), ("feature_gates", False, False)],
    )
    assert (work / "wiki" / "m.md").read_bytes() == SYNC_PAGE.encode()


def test_a_run_that_fails_before_planning_still_writes_its_report(work, capsys):
    (work / "broken.tar.gz").write_bytes(b"not a tarball")
    assert main([*SYNC, "--enhancements", "broken.tar.gz", "--publish", "files"]) == 1
    data = report(work)
    assert outcome(data)[:4] == ("files", "failed", None, [])
    assert data["error"].startswith("broken.tar.gz: not a readable tar.gz archive (")
    assert (data["revision"], data["changes"], data["problems"]) == ("", [], [])


def test_a_bad_report_path_fails_before_any_page_is_written(work, capsys):
    assert main([*SYNC[:-1], "no/such/dir/r.json", "--publish", "files"]) == 1
    assert (work / "wiki" / "m.md").read_bytes() == SYNC_PAGE.encode()


def test_git_commit_applies_and_a_blocked_run_applies_nothing(tmp_path):
    wiki = tmp_path / "wiki"
    make_repo(wiki, {PAGE_PATH: PAGE, "README.md": "wiki\n"})
    cfg = git_config()
    first = run_git(wiki)
    from bot.commands.sync import run_report

    data = run_report(cfg, first.plan.snapshot, first.plan, first)
    assert (data["result"], data["pages_written"], data["pull_request"], data["pull_request_file"]) == (
        "ok",
        [PAGE_PATH],
        None,
        str(wiki / ".git" / "kep-sync" / "pull-request.md"),
    )
    assert [c["applied"] for c in data["changes"] if c["proposed"]] == [True] * sum(
        c.applied for c in first.plan.changes
    )
    git(wiki, "checkout", "-q", BRANCH)
    commit(wiki, {"notes.md": "mine\n"}, "human work")
    git(wiki, "checkout", "-q", "main")
    blocked = run_git(wiki, keps(beta_4671="v1.36"))
    data = run_report(cfg, blocked.plan.snapshot, blocked.plan, blocked)
    assert (data["result"], data["pages_written"], "error" in data) == ("blocked", [], False)
    assert [c["field"] for c in data["changes"] if c["proposed"]] == ["stage", "beta"]
    assert not any(c["applied"] for c in data["changes"])


def test_the_sync_finished_line_says_what_the_report_says(work, capsys):
    assert main([*SYNC, "--publish", "files"]) == 0
    line, published = capsys.readouterr().err.splitlines()  # then the pages written, for people
    assert json.loads(published)["lines"] == ["kep-sync: wrote wiki/m.md: 1 row changed, 0 added"]
    event = json.loads(line)
    assert {
        k: event[k]
        for k in (
            "result",
            "revision",
            "changes",
            "applied",
            "pages_written",
            "pull_request",
            "pull_request_file",
            "findings",
        )
    } == {
        "result": "ok",
        "revision": "",
        "changes": 2,
        "applied": 2,
        "pages_written": 1,
        "pull_request": None,
        "pull_request_file": None,
        "findings": 1,
    }
    assert "error" not in event
    assert main([*SYNC, "--publish", "none"]) == 0
    event = json.loads(capsys.readouterr().err.splitlines()[0])
    assert (event["changes"], event["applied"], event["pages_written"]) == (0, 0, 0)  # already in sync
