"""Unit tests for bot.sources.release_notes: directory and GitHub forms (respx), ETag cache, errors, CLI flag."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import httpx
import pytest
import respx
import structlog

import bot.sources.release_notes as rn
from bot import http as bot_http
from bot.cli import build_parser, main, resolve_config
from bot.errors import SourceError, UsageError
from bot.http import make_client
from bot.kep import Problem
from bot.sources.release_notes import (
    NotesSource,
    current_etags,
    load_release_notes,
    parse_notes,
    parse_notes_source,
    select_releases,
)

try:
    from tests.notesutil import KEP_FILES, entry, notes_135, notes_136, notes_137
except ImportError:  # pragma: no cover
    from notesutil import KEP_FILES, entry, notes_135, notes_136, notes_137

API = "https://api.example.test"
RAW = "https://raw.example.test"
LISTING = f"{API}/repos/kubernetes/sig-release/contents/releases"
SRC = "github:kubernetes/sig-release@master"


@pytest.fixture(autouse=True)
def _no_sleep(monkeypatch):
    """Retries in bot.http.send record nothing and never sleep."""
    monkeypatch.setattr(rn, "send", functools.partial(bot_http.send, sleep=lambda seconds: None))


def raw(minor: int) -> str:
    return f"{RAW}/kubernetes/sig-release/master/releases/release-1.{minor}/release-notes/release-notes-draft.json"


def body(notes: dict) -> bytes:
    return json.dumps(notes).encode()


def notes_dir(tmp_path: Path) -> Path:
    d = tmp_path / "notes"
    d.mkdir()
    for minor, notes in ((34, {"1": entry(1, "Old.")}), (35, notes_135()), (36, notes_136()), (37, notes_137())):
        (d / f"release-notes-1.{minor}.json").write_bytes(body(notes))
    (d / "release-notes-1.36.md").write_text("# rendered, ignored\n")
    return d


def test_parse_notes_source(tmp_path):
    assert parse_notes_source("github:kubernetes/sig-release@main") == NotesSource("github", "kubernetes/sig-release",
                                                                                   "main")
    assert parse_notes_source("github:a/b") == NotesSource("github", "a/b", "master")
    assert parse_notes_source(str(tmp_path)) == NotesSource("dir", str(tmp_path))
    for bad in ("github:nope", str(tmp_path / "missing")):
        with pytest.raises(UsageError, match="--release-notes"):
            parse_notes_source(bad)


def test_select_releases_wanted_plus_newest_two():
    available = ["v1.37", "v1.20", "v1.36", "v1.35", "v1.9"]
    assert select_releases(available, ["1.20", "v1.35", "v1.12", "junk"]) == ["v1.20", "v1.35", "v1.36", "v1.37"]
    assert select_releases(available, []) == ["v1.36", "v1.37"]
    assert select_releases(available, None) == ["v1.9", "v1.20", "v1.35", "v1.36", "v1.37"]
    assert select_releases(available, [], newest=0) == []


def test_parse_notes_errors_name_the_file_and_line():
    with pytest.raises(SourceError, match=r"^x\.json: not valid JSON at line 2 column 1"):
        parse_notes("x.json", b'{"1": {"text": "a"},\n}')
    with pytest.raises(SourceError, match=r"^x\.json: expected a JSON object .* found list"):
        parse_notes("x.json", b"[]")
    with pytest.raises(SourceError, match=r"^x\.json: not UTF-8"):
        parse_notes("x.json", b"\xff")
    entries, problems = parse_notes("x.json", body(notes_136()))
    assert sorted(entries) == ["9101", "9103", "9104", "9105", "9106"]
    assert problems == [Problem("x.json", "9107", "release-note entry has no text; skipped")]


def test_directory_reads_only_the_wanted_and_newest_releases(tmp_path):
    d = notes_dir(tmp_path)
    got = load_release_notes(str(d), tmp_path / "cache", ["v1.35"])
    assert got.source == str(d)
    assert got.available == ("v1.34", "v1.35", "v1.36", "v1.37")
    assert sorted(got.notes) == ["v1.35", "v1.36", "v1.37"]
    assert got.notes["v1.35"] == notes_135()
    assert got.problems == (Problem(str(d / "release-notes-1.36.json"), "9107",
                                    "release-note entry has no text; skipped"),)
    assert not (tmp_path / "cache").exists()


def test_directory_with_a_broken_file_is_a_source_error(tmp_path):
    d = notes_dir(tmp_path)
    (d / "release-notes-1.37.json").write_text("{oops")
    with pytest.raises(SourceError, match=r"release-notes-1\.37\.json: not valid JSON at line 1"):
        load_release_notes(str(d), tmp_path / "cache", [])


LISTING_BODY = [{"name": f"release-1.{m}", "type": "dir"} for m in (34, 35, 36, 37)] + [
    {"name": "README.md", "type": "file"}, {"name": "release-notes", "type": "dir"}]


def _routes(router: respx.Router) -> dict[str, respx.Route]:
    """Routes for the listing and releases 1.34-1.37; by default each answers 200 with an ETag ("L1", "A35", ...)."""
    routes = {"listing": router.get(LISTING, params={"ref": "master"})}
    routes["listing"].mock(return_value=httpx.Response(200, json=LISTING_BODY, headers={"ETag": '"L1"'}))
    for minor, notes in ((34, {}), (35, notes_135()), (36, notes_136()), (37, notes_137())):
        routes[str(minor)] = router.get(raw(minor))
        routes[str(minor)].mock(return_value=httpx.Response(200, content=body(notes), headers={"ETag": f'"A{minor}"'}))
    return routes


def _load(tmp_path: Path, wanted=("v1.35",)):
    with make_client() as client:
        return load_release_notes(SRC, tmp_path / "cache", wanted, client=client, api_url=API, raw_url=RAW)


def test_github_fetches_listing_and_needed_files_then_revalidates_with_etags(tmp_path):
    with respx.mock(assert_all_called=False) as router:
        r = _routes(router)
        r["37"].mock(return_value=httpx.Response(404))
        first = _load(tmp_path)
        assert r["34"].call_count == 0
        assert "if-none-match" not in r["35"].calls.last.request.headers
        assert first.source == SRC
        assert first.available == ("v1.34", "v1.35", "v1.36", "v1.37")
        assert first.notes == {"v1.35": notes_135(), "v1.36": {k: v for k, v in notes_136().items() if k != "9107"}}
        assert first.problems == (
            Problem("kubernetes/sig-release@master:releases/release-1.36/release-notes/release-notes-draft.json",
                    "9107", "release-note entry has no text; skipped"),
            Problem("kubernetes/sig-release/releases/release-1.37/release-notes/release-notes-draft.json", "",
                    "no release notes for v1.37 (HTTP 404)"))

        for route in (r["listing"], r["35"], r["36"]):
            route.mock(return_value=httpx.Response(304))
        second = _load(tmp_path)
        assert r["listing"].calls.last.request.headers["if-none-match"] == '"L1"'
        assert r["35"].calls.last.request.headers["if-none-match"] == '"A35"'
        assert r["36"].calls.last.request.headers["if-none-match"] == '"A36"'
        assert second == first
        assert (r["listing"].call_count, r["35"].call_count, r["36"].call_count, r["37"].call_count) == (2, 2, 2, 2)


def test_github_changed_file_replaces_the_cache(tmp_path):
    newer = {"1": entry(1, "Promoted `WidgetGate` to GA.")}
    with respx.mock(assert_all_called=False) as router:
        r = _routes(router)
        _load(tmp_path, ())
        r["37"].mock(return_value=httpx.Response(200, content=body(newer), headers={"ETag": '"B37"'}))
        assert _load(tmp_path, ()).notes["v1.37"] == newer
        r["37"].mock(return_value=httpx.Response(304))
        assert _load(tmp_path, ()).notes["v1.37"] == newer
        assert r["37"].calls.last.request.headers["if-none-match"] == '"B37"'


def test_github_network_failure_falls_back_to_the_cache(tmp_path):
    with respx.mock(assert_all_called=False) as router:
        r = _routes(router)
        first = _load(tmp_path, ())
        r["listing"].mock(side_effect=httpx.ConnectError("down"))
        r["36"].mock(return_value=httpx.Response(500))
        r["37"].mock(return_value=httpx.Response(304))
        again = _load(tmp_path, ())
    assert again.notes == first.notes
    assert [(p.path, p.message) for p in again.problems if p not in first.problems] == [
        (f"{LISTING}?ref=master", "ConnectError; using the cached copy"), (raw(36), "HTTP 500; using the cached copy")]


def test_github_failures_without_cache_are_source_errors(tmp_path):
    with respx.mock(assert_all_called=False) as router:
        r = _routes(router)
        r["listing"].mock(return_value=httpx.Response(404))
        with pytest.raises(SourceError, match="HTTP 404, no releases/ folder at 'master'"):
            _load(tmp_path)
        r["listing"].mock(side_effect=httpx.ConnectError("down"))
        with pytest.raises(SourceError, match="ConnectError"):
            _load(tmp_path)
        r["listing"].mock(return_value=httpx.Response(200, json={"message": "not a list"}))
        with pytest.raises(SourceError, match="not a contents API directory listing"):
            _load(tmp_path)
        r["listing"].mock(return_value=httpx.Response(200, json=LISTING_BODY))
        r["36"].mock(return_value=httpx.Response(403))
        with pytest.raises(SourceError, match=r"release-1\.36/release-notes/release-notes-draft\.json: HTTP 403"):
            _load(tmp_path, ())


COMMITS = f"{API}/repos/kubernetes/sig-release/commits?path=releases&sha=master&per_page=1"


def test_current_etags_of_a_directory_makes_no_request_and_sees_a_changed_file(tmp_path):
    d = notes_dir(tmp_path)
    with respx.mock() as router, make_client() as client:
        first = current_etags(str(d), client, {})
        assert len(router.calls) == 0
    assert sorted(first) == [str(d / f"release-notes-1.{m}.json") for m in (34, 35, 36, 37)]
    target = d / "release-notes-1.37.json"
    assert first[str(target)] == f"{target.stat().st_size}-{target.stat().st_mtime_ns}"
    target.write_bytes(body({"1": entry(1, "Changed text.")}))
    with make_client() as client:
        assert current_etags(str(d), client, first)[str(target)] != first[str(target)]


def test_current_etags_of_github_is_one_conditional_request(tmp_path):
    with respx.mock() as router, make_client() as client:
        route = router.get(COMMITS)
        route.mock(return_value=httpx.Response(200, json=[{"sha": "a" * 40}], headers={"ETag": '"C1"'}))
        first = current_etags(SRC, client, {}, api_url=API)
        assert first == {COMMITS: '"C1"'}
        assert "if-none-match" not in route.calls.last.request.headers

        route.mock(return_value=httpx.Response(304))
        assert current_etags(SRC, client, first, api_url=API) == first
        assert route.calls.last.request.headers["if-none-match"] == '"C1"'
        assert route.call_count == 2

        route.mock(return_value=httpx.Response(200, json=[{"sha": "b" * 40}]))  # no ETag: unknown
        assert current_etags(SRC, client, first, api_url=API) is None
        route.mock(return_value=httpx.Response(500))
        with pytest.raises(SourceError, match=r"commits\?path=releases.*: HTTP 500"):
            current_etags(SRC, client, first, api_url=API)


def test_cli_flag_overrides_config(tmp_path):
    args = build_parser().parse_args(["sync", "--release-notes", str(tmp_path)])
    assert resolve_config(args).release_notes.source == str(tmp_path)
    assert resolve_config(build_parser().parse_args(["sync"])).release_notes.source == ""


@pytest.fixture
def _reset_structlog():
    """main() points structlog at capsys' stderr; later tests must not log into that closed stream."""
    yield
    structlog.reset_defaults()


def test_cli_sync_with_a_release_notes_directory_end_to_end(tmp_path, monkeypatch, capsys, _reset_structlog):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KEP_SYNC_CONFIG", raising=False)
    enh = tmp_path / "enh"
    for path, text in KEP_FILES.items():
        (enh / path).parent.mkdir(parents=True, exist_ok=True)
        (enh / path).write_text(text)
    wiki = tmp_path / "wiki"
    wiki.mkdir()
    (wiki / "m.md").write_text("| KEP | Status | Alpha | Beta | GA |\n|---|---|---|---|---|\n"
                               "| [100](https://kep.k8s.io/100) | implementable / alpha | v1.35 | - | - |\n")
    report = tmp_path / "r.json"
    rc = main(["sync", "--enhancements", str(enh), "--wiki", str(wiki), "--page", "m.md",
               "--release-notes", str(notes_dir(tmp_path)), "--report", str(report)])
    assert rc == 0
    out = capsys.readouterr().out
    assert "| Evidence |" in out and "### Needs review" in out
    data = json.loads(report.read_text())
    assert [e["pr"] for c in data["changes"] for e in c["evidence"]] == [9101, 9101]
    assert [d["kind"] for d in data["discrepancies"]] == ["stage-mismatch", "undeclared-gate"]
    assert main(["sync", "--enhancements", str(enh), "--wiki", str(wiki), "--page", "m.md",
                 "--release-notes", "github:bad"]) == 2
