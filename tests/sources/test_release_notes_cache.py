"""The release-notes ETag cache: unusable entries read as absent, write failures are problems, bad bodies never stick.

One release (v1.37) behind a respx-mocked contents API; the cache lives in ``tmp_path``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import httpx
import pytest
import respx

from bot.http import make_client
from bot.model.kep import Problem
from bot.sources.release_notes import RAW_MEDIA_TYPE, current_etags, load_release_notes

try:
    from tests.notesutil import notes_137
except ImportError:  # pragma: no cover
    from notesutil import notes_137

API = "https://ghes.example.test/api/v3"
SRC = "github:kubernetes/sig-release@master"
LISTING = f"{API}/repos/kubernetes/sig-release/contents/releases"
FILE = f"{LISTING}/release-1.37/release-notes/release-notes-draft.json"
BODY = json.dumps(notes_137()).encode()
WHERE = "kubernetes/sig-release@master:releases/release-1.37/release-notes/release-notes-draft.json"


@pytest.fixture(autouse=True)
def _no_sleep(no_http_sleep):
    """Retries never sleep in this module (tests/conftest.py)."""


def entry_dir(cache: Path) -> Path:
    """Where :func:`load_release_notes` keeps the entries of :data:`SRC` under ``cache``."""
    return cache / "release-notes" / hashlib.sha256(SRC.encode()).hexdigest()[:16]


def routes(router: respx.Router, etag: bytes = b'"A37"') -> tuple[respx.Route, respx.Route]:
    """(listing, file): the listing names release-1.37; the file answers 200 with ``BODY`` and ``etag``."""
    listing = router.get(LISTING, params={"ref": "master"})
    listing.mock(return_value=httpx.Response(200, json=[{"name": "release-1.37", "type": "dir"}]))
    file = router.get(FILE, params={"ref": "master"}, headers={"Accept": RAW_MEDIA_TYPE})
    file.mock(return_value=httpx.Response(200, content=BODY, headers=[(b"ETag", etag)]))
    return listing, file


def load(cache: Path):
    with make_client() as client:
        return load_release_notes(SRC, cache, (), client=client, api_url=API)


def sent_etags(route: respx.Route) -> list[str | None]:
    return [c.request.headers.get("if-none-match") for c in route.calls]


def test_a_non_ascii_server_etag_is_never_sent_back(tmp_path):
    with respx.mock(assert_all_called=False) as router:
        _, file = routes(router, etag='"café"'.encode())
        first, second = load(tmp_path), load(tmp_path)
    assert first.notes == second.notes == {"v1.37": notes_137()} and second.problems == ()
    assert sent_etags(file) == [None, None]
    assert (entry_dir(tmp_path) / "release-1.37.etag").read_bytes() == b""
    assert (entry_dir(tmp_path) / "release-1.37.body").read_bytes() == BODY


@pytest.mark.parametrize("stored", [b'\xff\xfe"x"', '"é"'.encode(), b'"a\x01b"'])
def test_a_corrupt_etag_file_makes_the_entry_absent(tmp_path, stored):
    with respx.mock(assert_all_called=False) as router:
        _, file = routes(router)
        load(tmp_path)
        (entry_dir(tmp_path) / "release-1.37.etag").write_bytes(stored)
        again = load(tmp_path)
    assert again.notes == {"v1.37": notes_137()} and again.problems == ()
    assert sent_etags(file) == [None, None]
    assert (entry_dir(tmp_path) / "release-1.37.etag").read_bytes() == b'"A37"'  # rewritten by the fresh answer


def test_a_body_entry_that_is_a_directory_is_a_problem_and_leaves_no_temp_file(tmp_path):
    root = entry_dir(tmp_path)
    (root / "release-1.37.body").mkdir(parents=True)
    with respx.mock(assert_all_called=False) as router:
        _, file = routes(router)
        got = load(tmp_path)
    assert got.notes == {"v1.37": notes_137()}
    assert got.problems == (
        Problem(
            str(root / "release-1.37"), "", "cannot write the release-notes cache: Is a directory; going on without it"
        ),
    )
    assert sorted(p.name for p in root.iterdir()) == ["release-1.37.body", "releases.body", "releases.etag"]
    assert sent_etags(file) == [None]


def test_a_cache_dir_that_is_a_file_is_a_problem_per_entry_and_the_run_goes_on(tmp_path):
    (tmp_path / "cache").write_text("not a directory\n")
    with respx.mock(assert_all_called=False) as router:
        routes(router)
        got = load(tmp_path / "cache")
    root = entry_dir(tmp_path / "cache")
    assert got.notes == {"v1.37": notes_137()}
    assert got.problems == tuple(
        Problem(str(root / name), "", "cannot write the release-notes cache: Not a directory; going on without it")
        for name in ("releases", "release-1.37")
    )
    assert (tmp_path / "cache").read_text() == "not a directory\n"


def test_a_truncated_cached_body_is_dropped_and_fetched_again_once(tmp_path):
    with respx.mock(assert_all_called=False) as router:
        _, file = routes(router)
        load(tmp_path)
        (entry_dir(tmp_path) / "release-1.37.body").write_bytes(BODY[:40])  # the ETag still matches
        file.mock(
            side_effect=lambda request: (
                httpx.Response(304)
                if request.headers.get("if-none-match")
                else httpx.Response(200, content=BODY, headers={"ETag": '"A37"'})
            )
        )
        fixed = load(tmp_path)
        assert sent_etags(file) == [None, '"A37"', None]
        assert fixed.notes == {"v1.37": notes_137()} and fixed.problems == ()
        assert (entry_dir(tmp_path) / "release-1.37.body").read_bytes() == BODY
        again = load(tmp_path)  # healed: one conditional request, answered 304
    assert sent_etags(file) == [None, '"A37"', None, '"A37"'] and again.notes == fixed.notes


def test_a_fresh_body_that_does_not_decode_is_not_cached(tmp_path):
    with respx.mock(assert_all_called=False) as router:
        _, file = routes(router)
        file.mock(return_value=httpx.Response(200, content=b'{"1": {"text": "cut', headers={"ETag": '"T"'}))
        first = load(tmp_path)
        file.mock(return_value=httpx.Response(200, content=BODY, headers={"ETag": '"A37"'}))
        second = load(tmp_path)
    assert first.notes == {} and [p.message for p in first.problems] == [
        "not valid JSON at line 1 column 16: Unterminated string starting at; evidence and checks for v1.37 "
        "were skipped"
    ]
    assert sent_etags(file) == [None, None] and second.notes == {"v1.37": notes_137()}


def test_current_etags_never_sends_or_keeps_a_non_ascii_etag():
    url = f"{API}/repos/kubernetes/sig-release/commits?path=releases&sha=master&per_page=1"
    with respx.mock() as router, make_client() as client:
        route = router.get(url)
        route.mock(return_value=httpx.Response(200, json=[], headers=[(b"ETag", '"ü"'.encode())]))
        assert current_etags(SRC, client, {url: '"ü"'}, api_url=API) is None
        assert sent_etags(route) == [None]
