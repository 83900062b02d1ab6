"""Fixtures of the command tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.syncutil import PAGE, PAGE_KEPS, write_keps


@pytest.fixture
def work(tmp_path, monkeypatch) -> Path:
    """tmp_path as the working directory, with ``enh/keps/...`` and ``wiki/m.md``; no config file."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KEP_SYNC_CONFIG", raising=False)
    monkeypatch.setenv("KEP_SYNC_CACHE_DIR", str(tmp_path / "cache"))
    write_keps(tmp_path / "enh", *PAGE_KEPS)
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "m.md").write_bytes(PAGE.encode())
    return tmp_path
