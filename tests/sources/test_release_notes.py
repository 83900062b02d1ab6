"""Unit tests for bot.sources.release_notes: directory and GitHub forms (respx), ETag cache, errors, CLI flag."""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import pytest
import respx

import bot.sources.release_notes as rn
from bot.cli import build_parser, main, resolve_config
from bot.errors import ConfigError, SourceError, UsageError
from bot.http import make_client
from bot.model.kep import Problem
from bot.sources.release_notes import (
    RAW_MEDIA_TYPE,
    NotesSource,
    ReleaseNotes,
    current_etags,
    load_release_notes,
    parse_notes,
    parse_notes_source,
    select_releases,
    with_missing,
)

try:
    from tests.notesutil import cli_tree, entry, notes_135, notes_136, notes_137
except ImportError:  # pragma: no cover
    from notesutil import cli_tree, entry, notes_135, notes_136, notes_137

API = "https://ghes.example.test/api/v3"  # GitHub Enterprise Server: the token must never leave this host
TOKEN = "ghes-secret-token"
LISTING = f"{API}/repos/kubernetes/sig-release/contents/releases"
SRC = "github:kubernetes/sig-release@master"


@pytest.fixture(autouse=True)
def _no_sleep(no_http_sleep):
    """Retries never sleep in this module (tests/conftest.py)."""


def contents(minor: int) -> str:
    """The contents API URL of release 1.``minor``'s release-notes-draft.json (without ``?ref=``)."""
    return f"{LISTING}/release-1.{minor}/release-notes/release-notes-draft.json"


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
    assert parse_notes_source("github:kubernetes/sig-release@main") == NotesSource(
        "github", "kubernetes/sig-release", "main"
    )
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


def _missing(source: str, release: str) -> Problem:
    return Problem(
        source,
        "",
        f"release notes for {release} are not available from {source}; evidence and checks for {release} were skipped",
    )


def test_with_missing_names_each_needed_release_up_to_the_newest_available():
    notes = ReleaseNotes("src", ("v1.35", "v1.36"), {"v1.36": {}}, (Problem("x", "", "old"),))
    wanted = ["1.34", "v1.35", "v1.36", "v1.37", "junk"]  # v1.37 is later than the newest available: not made yet
    got = with_missing(notes, wanted)
    assert got.problems == (Problem("x", "", "old"), _missing("src", "v1.34"), _missing("src", "v1.35"))
    assert (got.source, got.available, got.notes) == (notes.source, notes.available, notes.notes)
    assert with_missing(got, wanted) == got  # idempotent
    assert with_missing(ReleaseNotes("src", (), {}, ()), ["v1.40"]).problems == (_missing("src", "v1.40"),)


SKIPPED_37 = "evidence and checks for v1.37 were skipped"


@pytest.mark.parametrize(
    "data, why",
    [
        (
            b'{"1": {"text": "a"},\n}',
            "not valid JSON at line 2 column 1: Expecting property name enclosed in double quotes",
        ),
        (b"[]", "expected a JSON object keyed by pull request number, found list"),
        (b'"text"', "expected a JSON object keyed by pull request number, found str"),
        (b"\xff", "not UTF-8 (invalid start byte at byte 0)"),
        (b"[" * 100_000 + b"]" * 100_000, "JSON nested too deeply to decode"),
        (b'{"1": ' * 100_000 + b"1" + b"}" * 100_000, "JSON nested too deeply to decode"),
    ],
)
def test_a_broken_file_is_one_problem_naming_it_and_never_raises(data, why):
    assert parse_notes("x.json", data, "v1.37") == (None, [Problem("x.json", "", f"{why}; {SKIPPED_37}")])


def test_parse_notes_skips_entries_without_text():
    entries, problems = parse_notes("x.json", body(notes_136()))
    assert sorted(entries) == ["9101", "9103", "9104", "9105", "9106"]
    assert problems == [Problem("x.json", "9107", "release-note entry has no text; skipped")]


def test_a_do_not_publish_that_is_not_a_boolean_is_read_safely_and_reported():
    from bot.plan.evidence import build_index
    from tests.notesutil import fixture_keps

    text = "Promoted the `WidgetGate` feature gate to beta."
    doc = {
        str(pr): entry(pr, text, do_not_publish=value)
        for pr, value in [(1, "true"), (2, 1), (3, "TRUE "), (4, "false"), (5, 0), (6, True), (7, False), (8, ["x"])]
    }
    entries, problems = parse_notes("release-notes-1.36.json", json.dumps(doc).encode(), "v1.36")
    assert {k: e["do_not_publish"] for k, e in entries.items()} == {
        "1": True,
        "2": True,
        "3": True,
        "4": False,
        "5": False,
        "6": True,
        "7": False,
        "8": True,
    }
    assert problems == [
        Problem(
            "release-notes-1.36.json",
            "1",
            'do_not_publish is "true" (str), not true/false; read as true (withdrawn: never evidence)',
        ),
        Problem(
            "release-notes-1.36.json",
            "2",
            "do_not_publish is 1 (int), not true/false; read as true (withdrawn: never evidence)",
        ),
        Problem(
            "release-notes-1.36.json",
            "3",
            'do_not_publish is "TRUE " (str), not true/false; read as true (withdrawn: never evidence)',
        ),
        Problem("release-notes-1.36.json", "4", 'do_not_publish is "false" (str), not true/false; read as false'),
        Problem("release-notes-1.36.json", "5", "do_not_publish is 0 (int), not true/false; read as false"),
        Problem(
            "release-notes-1.36.json",
            "8",
            'do_not_publish is ["x"] (list), not true/false; read as true (withdrawn: never evidence)',
        ),
    ]
    idx = build_index({"v1.36": entries}, fixture_keps())
    assert sorted(m.pr for m in idx.mentions) == [4, 5, 7]  # only the entries not withdrawn are evidence


def test_directory_reads_only_the_wanted_and_newest_releases(tmp_path):
    d = notes_dir(tmp_path)
    got = load_release_notes(str(d), tmp_path / "cache", ["v1.35"])
    assert got.source == str(d)
    assert got.available == ("v1.34", "v1.35", "v1.36", "v1.37")
    assert sorted(got.notes) == ["v1.35", "v1.36", "v1.37"]
    assert got.notes["v1.35"] == notes_135()
    assert got.problems == (
        Problem(str(d / "release-notes-1.36.json"), "9107", "release-note entry has no text; skipped"),
    )
    assert not (tmp_path / "cache").exists()


def test_directory_without_a_needed_release_says_so(tmp_path):
    d = notes_dir(tmp_path)
    got = load_release_notes(str(d), tmp_path / "cache", ["v1.20", "v1.35", "v1.38"])
    assert sorted(got.notes) == ["v1.35", "v1.36", "v1.37"]
    assert got.problems == (
        Problem(str(d / "release-notes-1.36.json"), "9107", "release-note entry has no text; skipped"),
        _missing(str(d), "v1.20"),
    )


def test_directory_with_broken_files_skips_those_releases_and_reads_the_rest(tmp_path):
    d = notes_dir(tmp_path)
    (d / "release-notes-1.37.json").write_text('{"1": {"text": "a"}}\n{oops')
    (d / "release-notes-1.35.json").write_bytes(b"[" * 100_000)
    got = load_release_notes(str(d), tmp_path / "cache", ["v1.35"])
    assert sorted(got.notes) == ["v1.36"]
    assert got.problems == (
        Problem(
            str(d / "release-notes-1.35.json"),
            "",
            "JSON nested too deeply to decode; evidence and checks for v1.35 were skipped",
        ),
        Problem(str(d / "release-notes-1.36.json"), "9107", "release-note entry has no text; skipped"),
        Problem(str(d / "release-notes-1.37.json"), "", f"not valid JSON at line 2 column 1: Extra data; {SKIPPED_37}"),
    )  # v1.35 is wanted, yet told once: with_missing sees it was skipped
    assert with_missing(got, ["v1.35"]) == got


def test_directory_with_an_unreadable_or_special_file_skips_that_release(tmp_path):
    d = notes_dir(tmp_path)
    (d / "release-notes-1.37.json").unlink()
    (d / "release-notes-1.37.json").symlink_to(tmp_path / "nowhere")
    got = load_release_notes(str(d), tmp_path / "cache", [])
    assert sorted(got.notes) == ["v1.36"]
    assert got.problems[-1] == Problem(
        str(d / "release-notes-1.37.json"), "", f"cannot read release notes: No such file or directory; {SKIPPED_37}"
    )
    (d / "release-notes-1.37.json").unlink()
    os.mkfifo(d / "release-notes-1.37.json")  # opened without waiting for a writer, then refused
    got = load_release_notes(str(d), tmp_path / "cache", [])
    assert sorted(got.notes) == ["v1.36"]
    assert got.problems[-1] == Problem(
        str(d / "release-notes-1.37.json"), "", f"cannot read release notes: not a regular file (FIFO); {SKIPPED_37}"
    )


def test_directory_that_cannot_be_listed_is_a_config_error(tmp_path):
    with pytest.raises(
        ConfigError,
        match=r"^release_notes.source \(--release-notes\) '.*/gone': cannot list release "
        r"notes: No such file or directory$",
    ):
        rn._load_directory(tmp_path / "gone", None, 2)


def test_a_source_without_release_notes_is_a_config_error(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "README.md").write_text("notes elsewhere")
    with pytest.raises(ConfigError) as exc:
        load_release_notes(str(empty), tmp_path / "cache", None)
    assert str(exc.value) == (
        f"release_notes.source (--release-notes) {str(empty)!r}: no release-notes-1.NN.json file in the directory"
    )
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "release-notes-1.36.json").write_text("[]")
    (broken / "release-notes-1.37.json").write_text("{\n")
    with pytest.raises(ConfigError) as exc:
        load_release_notes(str(broken), tmp_path / "cache", None)
    assert str(exc.value) == (  # a config error, exit 2: no word of checks "skipped" as if the run went on
        f"release_notes.source (--release-notes) {str(broken)!r}: the source has no usable release notes (every "
        "release-notes file read is unusable; nothing was checked):\n"
        f"{broken / 'release-notes-1.36.json'}: expected a JSON object keyed by pull request number, found list\n"
        f"{broken / 'release-notes-1.37.json'}: not valid JSON at line 2 column 1: Expecting property name enclosed "
        "in double quotes"
    )


def test_cli_exits_2_for_a_release_notes_directory_without_notes(tmp_path, monkeypatch, capsys, _reset_structlog):
    enh, wiki = cli_tree(tmp_path, monkeypatch)
    (tmp_path / "none").mkdir()
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
            str(tmp_path / "none"),
        ]
    )
    assert rc == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"kep-sync: error: release_notes.source (--release-notes) {str(tmp_path / 'none')!r}: no "
        "release-notes-1.NN.json file in the directory"
    )


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
        _missing(SRC, "v1.33"),
        _missing(SRC, "v1.35"),
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
            where.format(35), "", f"GET {contents(35)}?ref=master: HTTP 403; evidence and checks for v1.35 were skipped"
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
