"""The ETag cache's size cap: a body over ``max_bytes`` is refused as it streams in (never read whole first), and
a cached body over the cap (a cache written with a larger cap, or edited) reads as absent."""

from __future__ import annotations

import httpx
import pytest
import respx

from bot.errors import SourceError
from bot.http import make_client
from bot.sources.etag_cache import EtagCache, fetch_cached

URL = "https://api.example.test/list.yaml"


class Chunks(httpx.SyncByteStream):
    """A body of ``count`` chunks of 1 KiB, recording how many were read."""

    def __init__(self, count: int):
        self.count, self.read = count, 0

    def __iter__(self):
        for _ in range(self.count):
            self.read += 1
            yield b"x" * 1024


@pytest.fixture(autouse=True)
def _no_sleep(no_http_sleep):
    """Retries never sleep in this module (tests/conftest.py)."""


def test_a_body_over_the_cap_is_refused_while_it_streams(tmp_path):
    body = Chunks(1000)
    with respx.mock() as router, make_client() as client:
        router.get(URL).mock(return_value=httpx.Response(200, stream=body))
        with pytest.raises(SourceError) as exc:
            fetch_cached(client, EtagCache(tmp_path), "list", URL, [], max_bytes=4096)
    assert str(exc.value) == f"GET {URL}: larger than 4096 bytes, refused"
    assert body.read == 5  # stopped at the first chunk past the cap, not after 1000
    assert not (tmp_path / "list.body").exists()


def test_a_cached_body_over_the_cap_reads_as_absent_and_is_fetched_again(tmp_path):
    cache = EtagCache(tmp_path)
    cache.put("list", b"y" * 5000, '"e1"')
    assert cache.get("list", 10_000) == (b"y" * 5000, '"e1"')
    assert cache.get("list", 4096) is None
    with respx.mock() as router, make_client() as client:
        route = router.get(URL).mock(return_value=httpx.Response(200, content=b"small", headers={"ETag": '"e2"'}))
        assert fetch_cached(client, cache, "list", URL, [], max_bytes=4096) == b"small"
    assert "If-None-Match" not in route.calls.last.request.headers  # the oversized entry was not offered
    assert cache.get("list", 4096) == (b"small", '"e2"')
