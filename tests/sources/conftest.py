"""Fixtures of the enhancements-source tests."""

from __future__ import annotations

import functools

import pytest

import bot.sources.github_tarball as enh
from bot import http as bot_http
from tests.fakegithub import FakeGitHub
from tests.sources.upstreamcases import FILES, REPO, TOKEN
from tests.sourcesutil import SleepRecorder


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch, tmp_path):
    """Keep git away from the user's config, parent repositories and prompts."""
    cfg = tmp_path / "gitconfig"
    cfg.write_text("[init]\n\tdefaultBranch = master\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(cfg))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "0")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)
    return cfg


@pytest.fixture()
def sleeps(monkeypatch) -> SleepRecorder:
    """Make the source module's retries record their waits instead of sleeping."""
    recorder = SleepRecorder()
    monkeypatch.setattr(enh, "send", functools.partial(bot_http.send, sleep=recorder))
    return recorder


@pytest.fixture
def fake(monkeypatch):
    """A running FakeGitHub with :data:`tests.sources.upstreamcases.REPO` seeded from its ``FILES`` (branch ``main``)
    and ``GITHUB_TOKEN`` set to its ``TOKEN``; stopped after the test."""
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    with FakeGitHub() as gh:
        gh.seed_repo(REPO, FILES)
        yield gh
