"""bot.sources.sig_release: the release team's records from a local copy or github: (respx), ETag-cached like the
release notes; files and dates it cannot read are problems naming them."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import respx

from bot.errors import ConfigError, UsageError
from bot.http import make_client
from bot.model.kep import Problem
from bot.sources.release_notes import RAW_MEDIA_TYPE
from bot.sources.sig_release import load_records, parse_records_source

README = """The v1.37 release cycle is proposed as follows:

- **Monday 18th May 2026**: Week 1 — Release cycle begins
- **Wednesday 22nd July 2026 (AoE) / Thursday 23rd July 2026, 12:00 UTC**: Week 10 — [Code Freeze][Code Freeze]
- **Wednesday 26th August 2026**: Week 15 — Kubernetes v1.37.0 released
"""
EXCEPTIONS = """codeFreeze:
- name: "Pod-Level Resource Managers"
  issue: 5526
  status: rejected
"""
API = "https://ghes.example.test/api/v3"
LISTING = f"{API}/repos/kubernetes/sig-release/contents/releases"


@pytest.fixture(autouse=True)
def _no_sleep(no_http_sleep):
    """Retries never sleep in this module (tests/conftest.py)."""


def tree(root: Path) -> Path:
    """``root/releases/release-1.36`` (README not UTF-8, exceptions) and ``release-1.37`` (README only)."""
    (root / "releases" / "release-1.37").mkdir(parents=True)
    (root / "releases" / "release-1.37" / "README.md").write_text(README)
    (root / "releases" / "release-1.36").mkdir()
    (root / "releases" / "release-1.36" / "README.md").write_bytes(b"\xff")
    (root / "releases" / "release-1.36" / "exceptions.yaml").write_text(EXCEPTIONS)
    (root / "releases" / "release_phases.md").write_text("x")
    return root


def test_a_local_copy_its_root_or_its_releases_folder(tmp_path):
    root = tree(tmp_path / "sig-release")
    for value in (str(root), str(root / "releases")):
        records = load_records(value, tmp_path / "cache")
        assert records.source == str(root / "releases")
        assert list(records.calendars) == ["v1.37"]
        cal = records.calendars["v1.37"]
        assert (cal.day("started"), cal.day("code_freeze"), cal.day("release_day")) == (
            "2026-05-18",
            "2026-07-22",
            "2026-08-26",
        )
        assert [(e.kep, e.kind, e.status) for e in records.exceptions["v1.36"]] == [(5526, "codeFreeze", "rejected")]
        assert records.exceptions.get("v1.37") is None  # no exceptions.yaml: none
        assert records.problems == (
            Problem("release-1.36/README.md", "", "not UTF-8 (invalid start byte at byte 0); not read"),
        )
    assert not (tmp_path / "cache").exists()


def test_a_source_with_no_release_folder_or_not_a_directory(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="no release-1.NN folder"):
        load_records(str(tmp_path / "empty"), tmp_path)
    with pytest.raises(UsageError, match="not a copy of kubernetes/sig-release"):
        parse_records_source(str(tmp_path / "missing"))
    assert parse_records_source("github:kubernetes/sig-release").ref == "master"


def test_github_reads_each_file_once_then_revalidates_with_its_etag(tmp_path):
    with respx.mock(assert_all_called=False) as router:
        router.get(LISTING, params={"ref": "v1"}).mock(
            return_value=httpx.Response(
                200, json=[{"name": "release-1.37", "type": "dir"}, {"name": "x", "type": "file"}]
            )
        )
        readme = router.get(f"{LISTING}/release-1.37/README.md", headers={"Accept": RAW_MEDIA_TYPE})
        readme.mock(return_value=httpx.Response(200, content=README.encode(), headers={"ETag": '"R"'}))
        absent = router.get(f"{LISTING}/release-1.37/exceptions.yaml").mock(return_value=httpx.Response(404))
        with make_client() as client:
            first = load_records("github:kubernetes/sig-release@v1", tmp_path, client=client, api_url=API)
        readme.mock(return_value=httpx.Response(304))
        with make_client() as client:
            again = load_records("github:kubernetes/sig-release@v1", tmp_path, client=client, api_url=API)
    assert first.source == "github:kubernetes/sig-release@v1"
    assert first.calendars["v1.37"].day("code_freeze") == again.calendars["v1.37"].day("code_freeze") == "2026-07-22"
    assert [c.request.headers.get("if-none-match") for c in readme.calls] == [None, '"R"']
    assert (absent.call_count, dict(first.exceptions), first.problems, again.problems) == (2, {}, (), ())


def test_the_flag_and_the_config_key(tmp_path, monkeypatch, _reset_structlog):
    from bot.cli.main import build_parser, main, resolve_config

    args = build_parser().parse_args(["watch", "--sig-release", str(tmp_path), "--today", "2026-07-22"])
    config = resolve_config(args)
    assert (config.release.sig_release, config.release.today) == (str(tmp_path), "2026-07-22")
    assert resolve_config(build_parser().parse_args(["sync"])).release.sig_release == ""
    (tmp_path / "conf").mkdir()
    (tmp_path / "sig-release" / "release-1.37").mkdir(parents=True)  # a source the config names is checked
    (tmp_path / "conf" / "kep-sync.yaml").write_text("release:\n  sig_release: ../sig-release\n")
    anchored = resolve_config(
        build_parser().parse_args(["audit", "--config", str(tmp_path / "conf" / "kep-sync.yaml")])
    )
    assert anchored.release.sig_release == str(tmp_path / "sig-release")
    monkeypatch.chdir(tmp_path)
    assert main(["watch", "--wiki", str(tmp_path), "--today", "2026-13-01"]) == 2
