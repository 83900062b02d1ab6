"""Unit tests for bot.sources.release_notes, the GitHub form (respx): listing and files fetched, ETag revalidation,
missing releases, where the token goes, errors; the ETag checks of both forms and the report's evidence (the
directory form and the CLI flag are tests/sources/test_release_notes.py's)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import respx

from bot.cli.main import build_parser, main, resolve_config
from bot.errors import ConfigError, SourceError
from bot.http import make_client
from bot.model.kep import Problem
from bot.sources.release_notes import (
    RAW_MEDIA_TYPE,
    current_etags,
    load_release_notes,
)
from tests.notesutil import (
    API,
    LISTING,
    SKIPPED_37,
    SRC,
    TOKEN,
    body,
    cli_tree,
    contents,
    entry,
    missing,
    notes_135,
    notes_136,
    notes_137,
    notes_dir,
)


@pytest.fixture(autouse=True)
def _no_sleep(no_http_sleep):
    """Retries never sleep in this module (tests/conftest.py)."""


LISTING_BODY = [{"name": f"release-1.{m}", "type": "dir"} for m in (34, 35, 36, 37)] + [
    {"name": "README.md", "type": "file"},
    {"name": "release-notes", "type": "dir"},
]


def _routes(router: respx.Router) -> dict[str, respx.Route]:
    """Routes for the listing and releases 1.34-1.37; by default each answers 200 with an ETag ("L1", "A35", ...).

    Release files answer only with the raw media type (GitHub REST "Get repository content").
    """
    routes = {"listing": router.get(LISTING, params={"ref": "master"})}
    routes["listing"].mock(return_value=httpx.Response(200, json=LISTING_BODY, headers={"ETag": '"L1"'}))
    for minor, notes in ((34, {}), (35, notes_135()), (36, notes_136()), (37, notes_137())):
        routes[str(minor)] = router.get(contents(minor), params={"ref": "master"}, headers={"Accept": RAW_MEDIA_TYPE})
        routes[str(minor)].mock(return_value=httpx.Response(200, content=body(notes), headers={"ETag": f'"A{minor}"'}))
    return routes


def _load(router: respx.Router, tmp_path: Path, wanted=("v1.35",), source: str = SRC):
    """Load through a client holding :data:`TOKEN`; every request ``router`` saw must have gone to the API only."""
    with make_client(TOKEN) as client:
        try:
            return load_release_notes(source, tmp_path / "cache", wanted, client=client, api_url=API)
        finally:
            calls = router.calls
            assert calls, "no request made"
            assert {(c.request.url.scheme, c.request.url.host) for c in calls} <= {("https", "ghes.example.test")}
            assert all(c.request.url.path.startswith("/api/v3/repos/kubernetes/sig-release/") for c in calls)
            assert all(c.request.headers["authorization"] == f"Bearer {TOKEN}" for c in calls)


def test_github_fetches_listing_and_needed_files_then_revalidates_with_etags(tmp_path):
    with respx.mock(assert_all_called=False) as router:
        r = _routes(router)
        r["37"].mock(return_value=httpx.Response(404))
        first = _load(router, tmp_path)
        assert r["34"].call_count == 0
        assert "if-none-match" not in r["35"].calls.last.request.headers
        assert first.source == SRC
        assert first.available == ("v1.34", "v1.35", "v1.36", "v1.37")
        assert first.notes == {"v1.35": notes_135(), "v1.36": {k: v for k, v in notes_136().items() if k != "9107"}}
        assert first.problems == (
            Problem(
                "kubernetes/sig-release@master:releases/release-1.36/release-notes/release-notes-draft.json",
                "9107",
                "release-note entry has no text; skipped",
            ),
            Problem(
                "kubernetes/sig-release/releases/release-1.37/release-notes/release-notes-draft.json",
                "",
                "no release notes for v1.37 (HTTP 404)",
            ),
        )

        for route in (r["listing"], r["35"], r["36"]):
            route.mock(return_value=httpx.Response(304))
        second = _load(router, tmp_path)
        assert r["listing"].calls.last.request.headers["if-none-match"] == '"L1"'
        assert r["35"].calls.last.request.headers["if-none-match"] == '"A35"'
        assert r["36"].calls.last.request.headers["if-none-match"] == '"A36"'
        assert second == first
        assert (r["listing"].call_count, r["35"].call_count, r["36"].call_count, r["37"].call_count) == (2, 2, 2, 2)


def test_github_a_needed_release_missing_upstream_is_one_problem(tmp_path):
    with respx.mock(assert_all_called=False) as router:
        r = _routes(router)
        r["35"].mock(return_value=httpx.Response(404))
        r["37"].mock(return_value=httpx.Response(404))
        got = _load(router, tmp_path, ("v1.33", "v1.35"))
    assert r["35"].call_count == 1
    assert sorted(got.notes) == ["v1.36"]
    assert got.problems == (
        Problem(
            "kubernetes/sig-release@master:releases/release-1.36/release-notes/release-notes-draft.json",
            "9107",
            "release-note entry has no text; skipped",
        ),
        Problem(
            "kubernetes/sig-release/releases/release-1.37/release-notes/release-notes-draft.json",
            "",
            "no release notes for v1.37 (HTTP 404)",
        ),  # read as one of the newest two, not needed
        missing(SRC, "v1.33"),
        missing(SRC, "v1.35"),
    )


def test_github_sends_every_request_and_the_token_to_the_api_url_only(tmp_path):
    with respx.mock(assert_all_called=False) as router:
        _routes(router)
        raw_host = router.get(url__regex=r"^https://raw\.githubusercontent\.com/")
        got = _load(router, tmp_path, ())
        assert raw_host.call_count == 0
        assert [
            (str(c.request.url), c.request.headers["accept"], c.request.headers["authorization"]) for c in router.calls
        ] == [
            (f"{LISTING}?ref=master", "application/vnd.github+json", f"Bearer {TOKEN}"),
            (f"{contents(36)}?ref=master", RAW_MEDIA_TYPE, f"Bearer {TOKEN}"),
            (f"{contents(37)}?ref=master", RAW_MEDIA_TYPE, f"Bearer {TOKEN}"),
        ]
    assert sorted(got.notes) == ["v1.36", "v1.37"]


def test_github_a_redirect_to_another_host_does_not_carry_the_token(tmp_path):
    elsewhere = "https://objects.example.test/notes-1.36"
    with respx.mock(assert_all_called=False) as router:
        r = _routes(router)
        r["36"].mock(return_value=httpx.Response(302, headers={"Location": elsewhere}))
        moved = router.get(elsewhere).mock(return_value=httpx.Response(200, content=body(notes_136())))
        with make_client(TOKEN) as client:
            got = load_release_notes(SRC, tmp_path / "cache", (), client=client, api_url=API)
    assert r["36"].calls.last.request.headers["authorization"] == f"Bearer {TOKEN}"
    assert moved.call_count == 1
    assert "authorization" not in moved.calls.last.request.headers
    assert sorted(got.notes["v1.36"]) == ["9101", "9103", "9104", "9105", "9106"]


def test_github_ref_is_percent_encoded_in_every_query(tmp_path):
    with respx.mock() as router:
        router.get(LISTING, params={"ref": "feat&x=1"}).mock(return_value=httpx.Response(200, json=LISTING_BODY))
        router.get(url__startswith=f"{LISTING}/").mock(return_value=httpx.Response(404))
        got = _load(router, tmp_path, (), source="github:kubernetes/sig-release@feat&x=1")
        assert [str(c.request.url) for c in router.calls] == [
            f"{LISTING}?ref=feat%26x%3D1",
            f"{contents(36)}?ref=feat%26x%3D1",
            f"{contents(37)}?ref=feat%26x%3D1",
        ]
    assert got.notes == {}


def test_github_broken_files_and_listing_items_are_problems_and_the_rest_is_read(tmp_path):
    where = "kubernetes/sig-release@master:releases/release-1.{}/release-notes/release-notes-draft.json"
    with respx.mock(assert_all_called=False) as router:
        r = _routes(router)
        r["listing"].mock(return_value=httpx.Response(200, json=[{"name": 5, "type": "dir"}, "junk"] + LISTING_BODY))
        r["35"].mock(return_value=httpx.Response(403))
        r["37"].mock(return_value=httpx.Response(200, content=b"[" * 100_000))
        got = _load(router, tmp_path)
    assert got.available == ("v1.34", "v1.35", "v1.36", "v1.37")
    assert sorted(got.notes) == ["v1.36"]
    assert got.problems == (
        Problem(
            f"{LISTING}?ref=master",
            "",
            "2 item(s) of the directory listing are not objects with a string "
            "name and type (first at index 0); skipped",
        ),
        Problem(
            where.format(35),
            "",
            f"GET {contents(35)}?ref=master: HTTP 403 (GitHub refused access: the token in GITHUB_TOKEN lacks a "
            "permission this needs, or an organization's SAML SSO has not authorized it); evidence and checks for "
            "v1.35 were skipped",
        ),
        Problem(where.format(36), "9107", "release-note entry has no text; skipped"),
        Problem(where.format(37), "", f"JSON nested too deeply to decode; {SKIPPED_37}"),
    )


def test_github_changed_file_replaces_the_cache(tmp_path):
    newer = {"1": entry(1, "Promoted `WidgetGate` to GA.")}
    with respx.mock(assert_all_called=False) as router:
        r = _routes(router)
        _load(router, tmp_path, ())
        r["37"].mock(return_value=httpx.Response(200, content=body(newer), headers={"ETag": '"B37"'}))
        assert _load(router, tmp_path, ()).notes["v1.37"] == newer
        r["37"].mock(return_value=httpx.Response(304))
        assert _load(router, tmp_path, ()).notes["v1.37"] == newer
        assert r["37"].calls.last.request.headers["if-none-match"] == '"B37"'


def test_github_network_failure_falls_back_to_the_cache(tmp_path):
    with respx.mock(assert_all_called=False) as router:
        r = _routes(router)
        first = _load(router, tmp_path, ())
        r["listing"].mock(side_effect=httpx.ConnectError("down"))
        r["36"].mock(return_value=httpx.Response(500))
        r["37"].mock(return_value=httpx.Response(304))
        again = _load(router, tmp_path, ())
    assert again.notes == first.notes
    assert [(p.path, p.message) for p in again.problems if p not in first.problems] == [
        (f"{LISTING}?ref=master", "ConnectError; using the cached copy"),
        (f"{contents(36)}?ref=master", "HTTP 500; using the cached copy"),
    ]


def test_github_failures_without_cache_are_source_errors(tmp_path):
    with respx.mock(assert_all_called=False) as router:
        r = _routes(router)
        r["listing"].mock(return_value=httpx.Response(404))
        with pytest.raises(ConfigError, match="HTTP 404, no releases/ folder at 'master'"):  # a wrong source
            _load(router, tmp_path)
        r["listing"].mock(return_value=httpx.Response(200, json=[{"name": "README.md", "type": "file"}]))
        with pytest.raises(ConfigError, match="no release-1.NN folder under releases/ at 'master'"):
            _load(router, tmp_path / "c2")
        r["listing"].mock(side_effect=httpx.ConnectError("down"))
        with pytest.raises(SourceError, match="ConnectError"):
            _load(router, tmp_path)
        for bad in (b'{"message": "not a list"}', b"[" * 100_000, b"{oops"):
            r["listing"].mock(return_value=httpx.Response(200, content=bad))
            with pytest.raises(
                SourceError,
                match=r"^GET https://ghes\.example\.test/api/v3/repos/kubernetes/"
                r"sig-release/contents/releases\?ref=master: not a contents API "
                r"directory listing$",
            ):
                _load(router, tmp_path)


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


def test_cli_sync_with_a_release_notes_directory_end_to_end(tmp_path, monkeypatch, capsys, _reset_structlog):
    enh, wiki = cli_tree(tmp_path, monkeypatch)
    report = tmp_path / "r.json"
    rc = main(
        [
            "sync",
            "--enhancements",
            str(enh),
            "--wiki",
            str(wiki),
            "--page",
            "m.md",
            "--release-notes",
            str(notes_dir(tmp_path)),
            "--report",
            str(report),
        ]
    )
    assert rc == 0
    out = capsys.readouterr().out
    assert "| Evidence |" in out and "<details><summary>Needs review (" in out
    data = json.loads(report.read_text())
    assert [e["pr"] for c in data["changes"] for e in c["evidence"]] == [9101, 9101]
    assert [d["kind"] for d in data["discrepancies"]] == ["stage-mismatch"]  # MysteryGate: not this page's
    assert (
        main(
            ["sync", "--enhancements", str(enh), "--wiki", str(wiki), "--page", "m.md", "--release-notes", "github:bad"]
        )
        == 2
    )

    notes = tmp_path / "notes"
    (notes / "release-notes-1.37.json").write_bytes(b"[" * 100_000)  # a broken file is a problem, not a failure
    (notes / "release-notes-1.35.json").write_text("[]")
    rc = main(
        [
            "sync",
            "--enhancements",
            str(enh),
            "--wiki",
            str(wiki),
            "--page",
            "m.md",
            "--release-notes",
            str(notes),
            "--report",
            str(report),
        ]
    )
    assert rc == 0
    data = json.loads(report.read_text())
    assert [p for p in data["problems"] if p["path"].startswith(str(notes))] == [
        {
            "path": str(notes / "release-notes-1.35.json"),
            "message": "expected a JSON object keyed by pull request number, found list; "
            "evidence and checks for v1.35 were skipped",
        },
        {"path": str(notes / "release-notes-1.36.json"), "message": "9107: release-note entry has no text; skipped"},
        {"path": str(notes / "release-notes-1.37.json"), "message": f"JSON nested too deeply to decode; {SKIPPED_37}"},
    ]
    assert [e["pr"] for c in data["changes"] for e in c["evidence"]] == [9101, 9101]
