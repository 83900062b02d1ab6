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
