"""Shared pytest fixtures."""

from __future__ import annotations

import pytest

try:  # works whether or not ``tests`` is importable as a package
    from tests.fakegithub import FakeGitHub
except ImportError:  # pragma: no cover
    from fakegithub import FakeGitHub


@pytest.fixture
def fake_github():
    """A running FakeGitHub server on 127.0.0.1 (stopped after the test)."""
    with FakeGitHub() as server:
        yield server


@pytest.fixture
def no_http_sleep(monkeypatch):
    """Retries in ``bot.http.send`` (as the release-notes modules call it) never sleep."""
    import functools

    import bot.http
    import bot.sources.etag_cache
    import bot.sources.release_notes

    no_sleep = functools.partial(bot.http.send, sleep=lambda seconds: None)
    monkeypatch.setattr(bot.sources.release_notes, "send", no_sleep)
    monkeypatch.setattr(bot.sources.etag_cache, "send", no_sleep)



@pytest.fixture
def _reset_structlog():
    """main() points structlog at capsys' stderr; later tests must not log into that closed stream."""
    yield
    import structlog

    structlog.reset_defaults()
