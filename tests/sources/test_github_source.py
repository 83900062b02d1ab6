"""``github:owner/repo@ref``: the ref lookup and the tarball download over ``httpx.MockTransport``, retries, size
limits and hostile members (bot/sources/github_tarball.py)."""

from __future__ import annotations

import random
import tarfile
from pathlib import Path

import httpx
import pytest

from bot.errors import SourceError
from bot.http import (
    MAX_ATTEMPTS,
    USER_AGENT,
    RequestCounter,
    make_client,
)
from bot.model.kep import Problem
from bot.sources.enhancements import (
    load_snapshot,
    read_tarball,
    resolve_github_ref,
)
from tests.sourcesutil import (
    API,
    SHA,
    TARBALL_FILES,
    TOKEN,
    TOP,
    FakeGitHub,
    client_for,
    file_info,
    kep,
    link_info,
    make_tarball,
)

pytestmark = pytest.mark.usefixtures("_isolated_git")


def test_read_tarball_reads_only_metadata_members(sleeps, monkeypatch):
    extracted: list[str] = []
    original = tarfile.TarFile.extractfile

    def recording_extractfile(self, member):
        extracted.append(member.name if isinstance(member, tarfile.TarInfo) else member)
        return original(self, member)

    monkeypatch.setattr(tarfile.TarFile, "extractfile", recording_extractfile)
    gh = FakeGitHub(make_tarball(TARBALL_FILES))
    with client_for(gh) as client:
        files, problems = read_tarball(client, API, "kubernetes/enhancements", SHA)
    expected = [
        "keps/sig-a/1-first/kep.yaml",
        "keps/sig-b/2-second/kep.yaml",
        "keps/NNNN-kep-template/kep.yaml",
        "keps/prod-readiness/sig-a/1.yaml",
        "keps/prod-readiness/template/nnnn.yaml",
    ]
    assert [p for p, _ in files] == expected
    assert dict(files)["keps/sig-a/1-first/kep.yaml"] == kep("1", "First").encode()
    assert extracted == [f"{TOP}/{p}" for p in expected]
    assert problems == []
    assert gh.streams and gh.streams[0].closed


def test_github_source_end_to_end(sleeps):
    gh = FakeGitHub(make_tarball(TARBALL_FILES))
    counter = RequestCounter()
    with client_for(gh, counter=counter) as client:
        snap = load_snapshot("github:kubernetes/enhancements@master", Path("/nonexistent-cache"), client=client)
    assert snap.source == "github:kubernetes/enhancements@master"
    assert snap.revision == SHA
    assert [(k.number, k.title) for k in snap.all_keps()] == [(1, "First"), (2, "Second")]
    assert snap.prr == {1: ("keps/prod-readiness/sig-a/1.yaml",)}
    assert snap.problems == ()
    assert [str(r.url) for r in gh.requests] == [
        f"{API}/repos/kubernetes/enhancements/commits/master",
        f"{API}/repos/kubernetes/enhancements/tarball/{SHA}",
        f"https://codeload.example/kubernetes/enhancements/legacy.tar.gz/{SHA}",
    ]
    assert counter.count == 3  # request hooks fire for every hop, redirects included
    ref_request, tar_request, codeload_request = gh.requests
    assert ref_request.headers["Accept"] == "application/vnd.github.sha"
    assert ref_request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert ref_request.headers["User-Agent"] == USER_AGENT
    assert tar_request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert "Authorization" not in codeload_request.headers  # not leaked to another host
    assert sleeps.calls == []


def test_github_source_default_ref_is_head(sleeps):
    gh = FakeGitHub(make_tarball(TARBALL_FILES))
    with client_for(gh, token=None) as client:
        snap = load_snapshot("github:kubernetes/enhancements", Path("/nonexistent-cache"), client=client)
    assert snap.source == "github:kubernetes/enhancements@HEAD"
    assert str(gh.requests[0].url) == f"{API}/repos/kubernetes/enhancements/commits/HEAD"
    assert "Authorization" not in gh.requests[0].headers


def test_custom_api_url(sleeps):
    class Enterprise(FakeGitHub):
        def __call__(self, request):
            if request.url.host == "ghe.example":
                request.url = request.url.copy_with(host="api.github.com", path=request.url.path[len("/api/v3") :])
            return super().__call__(request)

    gh = Enterprise(make_tarball(TARBALL_FILES))
    with client_for(gh) as client:
        assert resolve_github_ref(client, "https://ghe.example/api/v3/", "kubernetes/enhancements", "master") == SHA


def test_unknown_ref_is_source_error_without_token(sleeps):
    gh = FakeGitHub(make_tarball(TARBALL_FILES))
    with client_for(gh, token=TOKEN) as client:
        with pytest.raises(SourceError) as info:
            load_snapshot("github:kubernetes/enhancements@nope", Path("/nonexistent-cache"), client=client)
    message = str(info.value)
    assert message == (
        f"GET {API}/repos/kubernetes/enhancements/commits/nope: HTTP 404, could not resolve 'nope' to a commit"
    )
    assert TOKEN not in message
    assert gh.requests[0].headers["Authorization"] == f"Bearer {TOKEN}"  # the token was really in play
    assert len(gh.requests) == 1
    assert sleeps.calls == []


def test_ref_answer_that_is_not_a_sha_is_source_error(sleeps):
    gh = FakeGitHub(sha="<html>not a sha</html>")
    with client_for(gh) as client:
        with pytest.raises(SourceError) as info:
            resolve_github_ref(client, API, "kubernetes/enhancements", "master")
    assert str(info.value) == (
        f"GET {API}/repos/kubernetes/enhancements/commits/master: HTTP 200, could not resolve 'master' to a commit"
    )


def test_ref_transport_failure_is_source_error_after_retries(sleeps):
    calls = []

    def handler(request):
        calls.append(request)
        raise httpx.ConnectError(f"cannot connect (token {TOKEN})", request=request)

    with client_for(handler) as client:
        with pytest.raises(SourceError) as info:
            resolve_github_ref(client, API, "kubernetes/enhancements", "master")
    assert str(info.value) == (
        f"GET {API}/repos/kubernetes/enhancements/commits/master: ConnectError: cannot connect (token ***)"
    )
    assert len(calls) == MAX_ATTEMPTS
    assert sleeps.calls == [2.0, 4.0, 8.0]


@pytest.mark.parametrize("status", [404, 500])
def test_tarball_http_error_is_source_error(sleeps, status):
    gh = FakeGitHub(tarball_status=status)
    with client_for(gh) as client:
        with pytest.raises(SourceError) as info:
            read_tarball(client, API, "kubernetes/enhancements", SHA)
    assert str(info.value) == f"GET {API}/repos/kubernetes/enhancements/tarball/{SHA}: HTTP {status}"
    assert TOKEN not in str(info.value)


def corrupt_deflate() -> bytes:
    data = bytearray(make_tarball({**TARBALL_FILES, "keps/sig-z/9-r/x.bin": random.Random(4).randbytes(20_000)}))
    data[len(data) // 2 : len(data) // 2 + 64] = bytes(64)  # zlib.error inside the gzip member
    return bytes(data)


@pytest.mark.parametrize(
    "body", [lambda: b"<html>this is not a tarball</html>" * 10, corrupt_deflate], ids=["not-gzip", "corrupt-deflate"]
)
def test_tarball_that_is_not_gzip_is_source_error(sleeps, body):
    gh = FakeGitHub(body())
    with client_for(gh) as client:
        with pytest.raises(SourceError) as info:
            read_tarball(client, API, "kubernetes/enhancements", SHA)
    assert str(info.value).startswith(
        f"GET {API}/repos/kubernetes/enhancements/tarball/{SHA}: not a readable tar.gz archive ("
    )


def test_truncated_tarball_is_source_error(sleeps):
    data = make_tarball({**TARBALL_FILES, "keps/sig-z/9-big/kep.yaml": random.Random(1).randbytes(50_000)})
    gh = FakeGitHub(data[: len(data) // 2])
    with client_for(gh) as client:
        with pytest.raises(SourceError) as info:
            read_tarball(client, API, "kubernetes/enhancements", SHA)
    assert "not a readable tar.gz archive" in str(info.value)


def test_connection_drop_mid_body_is_source_error(sleeps):
    data = make_tarball({**TARBALL_FILES, "keps/sig-z/9-big/other.bin": random.Random(2).randbytes(40_000)})
    gh = FakeGitHub(data, fail_after=2)
    with client_for(gh) as client:
        with pytest.raises(SourceError) as info:
            read_tarball(client, API, "kubernetes/enhancements", SHA)
    assert str(info.value) == (
        f"GET {API}/repos/kubernetes/enhancements/tarball/{SHA}: ReadError while reading "
        "the body: connection reset while sending ***"
    )


@pytest.mark.parametrize("name", ["/etc/passwd", f"{TOP}/../../etc/passwd", f"{TOP}/keps/../../x/kep.yaml", "../evil"])
def test_escaping_member_refuses_the_archive(sleeps, name):
    evil = file_info(name, b"root:x:0:0\n")
    gh = FakeGitHub(make_tarball(TARBALL_FILES, extra=[evil]))
    with client_for(gh) as client:
        with pytest.raises(SourceError) as info:
            read_tarball(client, API, "kubernetes/enhancements", SHA)
    assert str(info.value) == (
        f"GET {API}/repos/kubernetes/enhancements/tarball/{SHA}: archive member {name!r} escapes the archive, refused"
    )


def test_links_and_devices_under_keps_are_skipped_and_reported(sleeps):
    device = tarfile.TarInfo(f"{TOP}/keps/sig-a/5-fifo/kep.yaml")
    device.type = tarfile.FIFOTYPE
    extra = [
        link_info(f"{TOP}/keps/sig-a/3-link/kep.yaml", "../1-first/kep.yaml"),
        link_info(f"{TOP}/keps/sig-a/4-hard/kep.yaml", f"{TOP}/keps/sig-a/1-first/kep.yaml", tarfile.LNKTYPE),
        link_info(f"{TOP}/keps/sig-c", "sig-a"),  # a linked directory would hide KEPs silently
        link_info(f"{TOP}/keps/prod-readiness/sig-a/3.yaml", "1.yaml"),
        link_info(f"{TOP}/keps/sig-a/6-abs/kep.yaml", "/etc/passwd"),
        (device, None),
        link_info(f"{TOP}/docs-link", "keps"),  # outside keps/: ignored
    ]
    gh = FakeGitHub(make_tarball(TARBALL_FILES, extra=extra))
    with client_for(gh) as client:
        files, problems = read_tarball(client, API, "kubernetes/enhancements", SHA)
        snap = load_snapshot("github:kubernetes/enhancements@master", Path("/nonexistent-cache"), client=client)
    assert [p for p, _ in files] == [
        p for p in TARBALL_FILES if p.endswith("kep.yaml") or p.startswith("keps/prod-readiness/")
    ]
    assert problems == [
        Problem("keps/sig-a/3-link/kep.yaml", "", "archive entry is a symbolic link, not a file; skipped"),
        Problem("keps/sig-a/4-hard/kep.yaml", "", "archive entry is a hard link, not a file; skipped"),
        Problem("keps/sig-c", "", "archive entry is a symbolic link, not a file; skipped"),
        Problem("keps/prod-readiness/sig-a/3.yaml", "", "archive entry is a symbolic link, not a file; skipped"),
        Problem("keps/sig-a/6-abs/kep.yaml", "", "archive entry is a symbolic link, not a file; skipped"),
        Problem("keps/sig-a/5-fifo/kep.yaml", "", "archive entry is a device or special file, not a file; skipped"),
    ]
    assert list(snap.keps) == [1, 2]
    assert snap.problems == tuple(sorted(problems))


def test_body_over_the_limit_is_refused(sleeps):
    data = make_tarball({**TARBALL_FILES, "keps/sig-z/9-noise/blob.bin": random.Random(3).randbytes(30_000)})
    assert len(data) > 20_000
    gh = FakeGitHub(data)
    with client_for(gh) as client:
        with pytest.raises(SourceError) as info:
            read_tarball(client, API, "kubernetes/enhancements", SHA, limit=20_000)
    assert str(info.value) == f"GET {API}/repos/kubernetes/enhancements/tarball/{SHA}: larger than 20000 bytes, refused"
    assert gh.streams[0].closed


def test_body_under_the_limit_is_accepted(sleeps):
    data = make_tarball(TARBALL_FILES)
    gh = FakeGitHub(data)
    with client_for(gh) as client:
        files, _ = read_tarball(client, API, "kubernetes/enhancements", SHA, limit=len(data))
    assert len(files) == 5


def test_metadata_that_unpacks_past_the_limit_is_refused(sleeps):
    bomb = b"title: x\n" + b"# padding\n" * 20_000  # ~200 kB that gzips to a few hundred bytes
    data = make_tarball({**TARBALL_FILES, "keps/sig-z/9-bomb/kep.yaml": bomb})
    assert len(data) < 20_000
    gh = FakeGitHub(data)
    with client_for(gh) as client:
        with pytest.raises(SourceError) as info:
            read_tarball(client, API, "kubernetes/enhancements", SHA, limit=20_000)
    assert str(info.value) == (
        f"GET {API}/repos/kubernetes/enhancements/tarball/{SHA}: metadata files larger than "
        "20000 bytes once unpacked, refused"
    )


def test_large_non_metadata_members_do_not_count_toward_the_unpacked_limit(sleeps):
    data = make_tarball({**TARBALL_FILES, "keps/sig-z/9-big/diagram.svg": b"<svg/>" * 50_000})
    gh = FakeGitHub(data)
    with client_for(gh) as client:
        files, _ = read_tarball(client, API, "kubernetes/enhancements", SHA, limit=20_000)
    assert len(files) == 5


def test_tarball_transient_502_is_retried(sleeps):
    gh = FakeGitHub(make_tarball(TARBALL_FILES))
    failures = [502]

    def handler(request):
        if request.url.host == "codeload.example" and failures:
            return httpx.Response(failures.pop(), text="bad gateway")
        return gh(request)

    with client_for(handler) as client:
        files, _ = read_tarball(client, API, "kubernetes/enhancements", SHA)
    assert len(files) == 5
    assert sleeps.calls == [2.0]


def test_github_source_through_respx(sleeps):
    respx = pytest.importorskip("respx")
    data = make_tarball(TARBALL_FILES)
    with respx.mock(assert_all_called=True) as router:
        ref = router.get(f"{API}/repos/o/r/commits/main").mock(return_value=httpx.Response(200, text=SHA + "\n"))
        router.get(f"{API}/repos/o/r/tarball/{SHA}").mock(return_value=httpx.Response(200, content=data))
        with make_client(TOKEN) as client:
            snap = load_snapshot("github:o/r@main", Path("/nonexistent-cache"), client=client)
    assert snap.revision == SHA
    assert list(snap.keps) == [1, 2]
    assert ref.calls.last.request.headers["Accept"] == "application/vnd.github.sha"
