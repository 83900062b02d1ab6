"""Fixtures of the publish tests: the fake GitHub with the wiki repository seeded, and its config."""

from __future__ import annotations

import pytest

from tests.publishutil import PAGE, PAGE_PATH, README, REPO, github_config


@pytest.fixture
def gh(fake_github):
    """The fake with the wiki repository seeded (one page plus a README) and the base SHA as ``gh.base``."""
    fake_github.base = fake_github.seed_repo(REPO, {PAGE_PATH: PAGE, "README.md": README})
    return fake_github


@pytest.fixture
def cfg(gh):
    return github_config(gh, labels=["kep-sync"], reviewers=["alice"], team_reviewers=["sig-arch"], assignees=["bob"])
