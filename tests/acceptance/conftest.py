"""Fixtures of the real-data acceptance tests."""

from __future__ import annotations

import functools

import pytest

import bot.model.snapshot
from bot.model.kep import parse_kep


@pytest.fixture(scope="module", autouse=True)
def _each_kep_parsed_once():
    """In an acceptance module ``build_snapshot`` parses each distinct ``(path, bytes)`` once (a ``KepFileError``
    is raised anew). ``parse_kep`` is a pure function of the two (tests/model holds its own tests), so the
    syncs and reads of a module, over the same 654 real kep.yaml files, each build their snapshot from the
    files they read without parsing the unchanged ones over again."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bot.model.snapshot, "parse_kep", functools.cache(parse_kep))
        yield
