"""Bounded GitHub answers: the gzip size cap, the per-file cap, endless bodies and overall deadlines
(bot/sources/github_tarball.py)."""

from __future__ import annotations

import contextlib
import gzip
import http.server
import threading

import httpx
import pytest

import bot.sources.github_tarball as enh
from bot.errors import SourceError
from bot.http import (
    make_client,
)
from bot.model.kep import Problem
from bot.sources.enhancements import (
    probe_github_ref,
    read_tarball,
    resolve_github_ref,
)
from tests.sourcesutil import (
    API,
    SHA,
    TARBALL_FILES,
    TOKEN,
    FakeGitHub,
    client_for,
    make_tarball,
)

pytestmark = pytest.mark.usefixtures("_isolated_git")


# -- gzip bomb, per-file cap in the tarball --------------------


def test_decompressed_size_is_capped(sleeps):
    data = make_tarball({**TARBALL_FILES, "keps/sig-z/9-zeros/blob.bin": bytes(300_000)})
    unpacked = len(gzip.decompress(data))
    assert len(data) < 5_000 < 300_000 < unpacked
    gh = FakeGitHub(data)
    with client_for(gh) as client:
        files, _ = read_tarball(client, API, "kubernetes/enhancements", SHA, max_unpacked=unpacked)
        assert len(files) == 5
        with pytest.raises(SourceError) as info:
            read_tarball(client, API, "kubernetes/enhancements", SHA, max_unpacked=unpacked - 1)
    assert str(info.value) == (
        f"GET {API}/repos/kubernetes/enhancements/tarball/{SHA}: larger than "
        f"{unpacked - 1} bytes once decompressed, refused"
    )
    assert all(s.closed for s in gh.streams)
    assert enh.MAX_UNPACKED_BYTES == 1024**3


def test_tarball_metadata_files_over_the_per_file_cap_are_reported(sleeps):
    files = {"keps/sig-a/1-a/kep.yaml": "x" * 100, "keps/sig-a/2-b/kep.yaml": "y" * 101}
    gh = FakeGitHub(make_tarball(files))
    with client_for(gh) as client:
        got, problems = read_tarball(client, API, "kubernetes/enhancements", SHA, max_file_bytes=100)
    assert got == [("keps/sig-a/1-a/kep.yaml", b"x" * 100)]
    assert problems == [Problem("keps/sig-a/2-b/kep.yaml", "", "larger than 100 bytes; skipped")]


# -- bounded bodies and overall deadlines --------------------


class FakeClock:
    """A monotonic clock that moves only when told (``advance`` seconds per :meth:`tick`)."""

    def __init__(self, advance: float) -> None:
        self.now, self.advance, self.ticks = 0.0, advance, 0

    def __call__(self) -> float:
        return self.now

    def tick(self) -> None:
        self.now += self.advance
        self.ticks += 1


def endless(chunk: bytes, clock: FakeClock | None = None, served: list | None = None):
    """A response body that never ends (each chunk moves ``clock`` on)."""

    def gen():
        while True:
            if clock is not None:
                clock.tick()
            if served is not None:
                served.append(len(chunk))
            yield chunk

    return gen()


def test_ref_lookup_reads_at_most_max_bytes_of_an_endless_body(sleeps):
    served: list[int] = []
    handler = lambda request: httpx.Response(200, content=endless(b"0" * 1000, served=served))  # noqa: E731
    with client_for(handler) as client:
        with pytest.raises(SourceError) as info:
            resolve_github_ref(client, API, "o/r", "main")
        assert sum(served) <= 5000
        with pytest.raises(SourceError) as info2:
            probe_github_ref(client, API, "o/r", "main", max_bytes=100)
    assert str(info.value) == f"GET {API}/repos/o/r/commits/main: larger than 4096 bytes, refused"
    assert str(info2.value) == f"GET {API}/repos/o/r/commits/main: larger than 100 bytes, refused"
    assert enh.MAX_REF_BYTES == 4096


def test_ref_probe_never_sends_or_keeps_a_non_ascii_etag(sleeps):
    seen = []

    def handler(request):
        seen.append(request.headers.get("if-none-match"))
        return httpx.Response(200, content=b"a" * 40, headers=[(b"ETag", '"é1"'.encode())])

    with client_for(handler) as client:
        got = probe_github_ref(client, API, "o/r", "main", etag='"é1"')
    assert (got.revision, got.etag, seen) == ("a" * 40, "", [None])


def test_ref_lookup_error_status_does_not_read_an_endless_body(sleeps):
    served: list[int] = []
    handler = lambda request: httpx.Response(404, content=endless(b"x" * 1000, served=served))  # noqa: E731
    with client_for(handler) as client:
        with pytest.raises(SourceError) as info:
            resolve_github_ref(client, API, "o/r", "main")
    assert str(info.value) == f"GET {API}/repos/o/r/commits/main: HTTP 404, could not resolve 'main' to a commit"
    assert sum(served) <= 1000


def test_ref_lookup_has_an_overall_deadline(sleeps):
    clock = FakeClock(advance=20.0)  # one byte every 20 s: never a read timeout
    handler = lambda request: httpx.Response(200, content=endless(b"0", clock))  # noqa: E731
    with client_for(handler) as client:
        with pytest.raises(SourceError) as info:
            probe_github_ref(client, API, "o/r", "main", clock=clock)
    assert str(info.value) == f"GET {API}/repos/o/r/commits/main: not finished within 30 s, aborted"
    assert clock.ticks == 2
    assert enh.MAX_REF_SECONDS == 30.0


def test_tarball_download_has_an_overall_deadline(sleeps):
    data = make_tarball(TARBALL_FILES)
    clock = FakeClock(advance=1.0)

    def handler(request):
        def drip():
            for i in range(len(data)):
                clock.tick()
                yield data[i : i + 1]

        return httpx.Response(200, content=drip())

    with client_for(handler) as client:
        with pytest.raises(SourceError) as info:
            read_tarball(client, API, "kubernetes/enhancements", SHA, seconds=50, clock=clock)
    assert str(info.value) == (
        f"GET {API}/repos/kubernetes/enhancements/tarball/{SHA}: not finished within 50 s, aborted"
    )
    assert clock.ticks == 51
    assert enh.MAX_DOWNLOAD_SECONDS == 300.0


@contextlib.contextmanager
def drip_server(body: bytes, interval: float = 0.02):
    """A loopback HTTP server that sends headers, then ``body`` one byte every ``interval`` s."""
    stop = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                for i in range(len(body)):
                    if stop.is_set():
                        break
                    self.wfile.write(body[i : i + 1])
                    self.wfile.flush()
                    stop.wait(interval)
            except OSError:
                pass

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        stop.set()
        server.shutdown()
        server.server_close()


def test_dripping_servers_are_cut_off_over_loopback(sleeps):
    with drip_server(SHA.encode()) as url, make_client(TOKEN) as client:
        with pytest.raises(SourceError) as info:
            probe_github_ref(client, url, "o/r", "main", seconds=0.1)
        assert str(info.value) == f"GET {url}/repos/o/r/commits/main: not finished within 0.1 s, aborted"
    with drip_server(make_tarball(TARBALL_FILES)) as url, make_client(TOKEN) as client:
        with pytest.raises(SourceError) as info:
            read_tarball(client, url, "o/r", SHA, seconds=0.1)
        assert str(info.value) == f"GET {url}/repos/o/r/tarball/{SHA}: not finished within 0.1 s, aborted"
