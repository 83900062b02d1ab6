"""An open bot pull request whose changes are the same says what this run knows: its body is recomputed every run
and edited (no commit) when anything it says changed (the watch, the evidence, the source revision), end to end:
the real PyGithub client against the fake GitHub."""

from __future__ import annotations

import json
import re

import pytest

from bot.config import Config
from bot.publish import pull_request as prmod
from tests.publishutil import (
    BRANCH,
    PAGE_PATH,
    READS_PR,
    REPO,
    R,
    fresh_logging,  # noqa: F401  (autouse fixture)
    github_config,
    keps,
    opened,
    run_github,
)

NOTE = "Graduated KEP-4671 to general availability."  # kep.yaml plans beta in v1.37: a contradiction


@pytest.fixture
def gh(fake_github):
    fake_github.seed_repo(REPO, {PAGE_PATH: "| KEP | Status |\n|---|---|\n| 4671 | implementable / alpha |\n"})
    return fake_github


@pytest.fixture
def notes(tmp_path):
    (tmp_path / "release-notes-1.36.json").write_text("{}")
    (tmp_path / "release-notes-1.37.json").write_text("{}")
    return tmp_path


@pytest.fixture
def cfg(gh, notes) -> Config:
    data = github_config(gh).model_dump(by_alias=True)
    data.update(release_notes={"source": str(notes)}, release={"current": "v1.37", "watch": True})
    return Config.model_validate(data)


def watch_line(body: str) -> str:
    return re.search(r"<summary>(Watch of [^<]*)</summary>", body).group(1)


def test_the_watch_and_the_source_revision_refresh_the_body_without_a_commit(gh, cfg, notes):
    opened(gh, cfg)
    head, first = gh.branch_sha(REPO, BRANCH), gh.pull(1)["body"]
    assert watch_line(first) == "Watch of v1.37: 1 KEP (1 no sign yet)"
    human = "Reviewed by the SIG on Monday.\r\n\r\n"
    gh.pull(1)["body"] = human + first  # a human writes above the section, on GitHub's web page

    (notes / "release-notes-1.37.json").write_text(json.dumps({"7001": {"text": NOTE, "pr_number": 7001}}))
    run = run_github(gh, keps(), cfg)
    assert run.requests == READS_PR + [("PATCH", f"{R}/pulls/1")] and run.writes == 1
    body = gh.pull(1)["body"]
    assert watch_line(body) == "Watch of v1.37: 1 KEP (1 contradicted)"
    assert body.startswith(human) and gh.branch_sha(REPO, BRANCH) == head
    assert prmod.parse_state(body) == prmod.parse_state(first)  # the commit it describes is the same

    again = run_github(gh, keps(), cfg)
    assert (again.requests, again.writes, gh.pull(1)["body"]) == (READS_PR, 0, body)

    moved = run_github(gh, keps()._replace(revision="fe" * 20), cfg)  # upstream moved; the same changes
    assert moved.requests == READS_PR + [("PATCH", f"{R}/pulls/1")] and gh.branch_sha(REPO, BRANCH) == head
    assert "at `fefefefefefe`" in gh.pull(1)["body"] and "at `fefefefefefe`" not in body


def test_a_base_that_moved_elsewhere_changes_no_link_and_writes_nothing(gh, cfg):
    opened(gh, cfg)
    body = gh.pull(1)["body"]
    gh.commit_files(REPO, "main", {"README.md": "wiki, edited\n"})
    run = run_github(gh, keps(), cfg)
    assert (run.requests, run.writes, gh.pull(1)["body"]) == (READS_PR, 0, body)


def test_a_new_title_setting_is_written_without_a_commit(gh, cfg):
    opened(gh, cfg)
    head, body = gh.branch_sha(REPO, BRANCH), gh.pull(1)["body"]
    titled = cfg.model_copy(update={"pull_request": cfg.pull_request.model_copy(update={"title": "KEP matrix"})})
    run = run_github(gh, keps(), titled)
    assert run.requests == READS_PR + [("PATCH", f"{R}/pulls/1")]
    assert (gh.pull(1)["title"], gh.pull(1)["body"], gh.branch_sha(REPO, BRANCH)) == ("KEP matrix", body, head)
