"""Fixtures of the real-data acceptance tests."""

from __future__ import annotations

import functools

import pytest

import bot.model.snapshot
from bot.model.kep import parse_kep

#: ``parse_kep`` remembered for this process (one pytest-xdist worker): every acceptance module it runs reads
#: the same 654 real kep.yaml files.
_PARSE_ONCE = functools.cache(parse_kep)


@pytest.fixture(scope="module", autouse=True)
def _each_kep_parsed_once():
    """In the acceptance modules ``build_snapshot`` parses each distinct ``(path, bytes)`` once a process (a
    ``KepFileError`` is raised anew). ``parse_kep`` is a pure function of the two and returns a
    :class:`~bot.model.kep.Kep` (a NamedTuple, immutable; tests/model holds its own tests), so the syncs and reads
    of every module, over the same real kep.yaml files, each build their snapshot from the files they read without
    parsing the unchanged ones over again. Outside these modules ``parse_kep`` is the real one."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bot.model.snapshot, "parse_kep", _PARSE_ONCE)
        yield
