"""A token GitHub refuses (``401 Bad credentials``: revoked, expired, mistyped) is named as such by every reader of
GitHub, never called a network failure (bot/http.py ``status_text``, bot/sources/enhancements.py ``unreachable``):
the fake GitHub answers every request as GitHub answers a revoked token."""

from __future__ import annotations

import functools

import httpx
import pytest

import bot.http
import bot.sources.github_tarball
from bot.errors import SourceError
from bot.http import TOKEN_REFUSED, make_client, refused, status_text
from bot.publish.auth import CREDENTIALS_REFUSED, GitHubApiError, connect
from bot.sources.enhancements import OFFLINE_HINT, current_revision, load_snapshot, unreachable
from bot.sources.gate_lifecycle import load_gate_lifecycle
from bot.sources.release_notes import load_release_notes
from bot.sources.upstream import github_upstream
from tests.fakegithub import FakeGitHub

REVOKED = "ghp_revokedRevokedRevoked000000000000"


@pytest.fixture
def revoked(monkeypatch):
    """The fake GitHub answering every request ``401 Bad credentials``; ``GITHUB_TOKEN`` holds :data:`REVOKED`."""
    monkeypatch.setenv("GITHUB_TOKEN", REVOKED)
    with FakeGitHub() as gh:
        gh.fail_next("*", "", 401, times=10_000, message="Bad credentials")
        yield gh


def _readers(api: str, cache):
    token = REVOKED
    return {
        "enhancements": lambda: load_snapshot("github:o/enh@main", cache, api_url=api, token=token),
        "the sync's upstream": lambda: github_upstream("github:o/enh@main", cache, api_url=api).snapshot(),
        "the service's poll": lambda: current_revision("github:o/enh@main", make_client(token), api_url=api),
        "release notes": lambda: load_release_notes(
            "github:kubernetes/sig-release@master", cache, ["v1.36"], api_url=api, token=token
        ),
        "gate lifecycle": lambda: load_gate_lifecycle(
            "github:kubernetes/kubernetes", cache, ["v1.36"], api_url=api, token=token
        ),
    }


@pytest.mark.parametrize(
    "reader", ["enhancements", "the sync's upstream", "the service's poll", "release notes", "gate lifecycle"]
)
def test_a_refused_token_is_named_not_called_offline(revoked, tmp_path, reader):
    with pytest.raises(SourceError) as failed:
        _readers(revoked.url, tmp_path / "cache")[reader]()
    message = str(failed.value)
    assert f"HTTP 401 ({TOKEN_REFUSED})" in message
    assert OFFLINE_HINT not in message and REVOKED not in message
    assert not unreachable(failed.value)


def test_the_publishing_session_names_refused_credentials(revoked):
    session = connect(revoked.url, "o/wiki", {"GITHUB_TOKEN": REVOKED}, seconds_between_writes=0)
    with pytest.raises(GitHubApiError) as failed:
        session.call("read the base branch", session.client.get_repo("o/wiki").get_branch, "main")
    assert str(failed.value) == f"GitHub API: read the base branch: HTTP 401 Bad credentials ({CREDENTIALS_REFUSED})"


def _answer(status: int, headers: dict[str, str] | None = None, token: str | None = "t0ken-value") -> httpx.Response:
    request = httpx.Request(
        "GET", "https://api.github.com/x", headers={"Authorization": f"Bearer {token}"} if token else {}
    )
    return httpx.Response(status, headers=headers or {}, request=request)


def test_status_text_says_what_only_the_credentials_can_fix():
    assert status_text(_answer(401)) == f"HTTP 401 ({TOKEN_REFUSED})"
    assert status_text(_answer(401, token=None)) == "HTTP 401 (GitHub asks for credentials: set GITHUB_TOKEN)"
    assert status_text(_answer(403)) == (
        "HTTP 403 (GitHub refused access: the token in GITHUB_TOKEN lacks a permission this needs, or an "
        "organization's SAML SSO has not authorized it)"
    )
    assert status_text(_answer(403, token=None)) == (
        "HTTP 403 (GitHub refused access: set GITHUB_TOKEN to a token that may read it)"
    )
    limited = _answer(403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "9999999999"})
    assert status_text(limited) == "HTTP 403"  # a rate limit: waiting (or a copy on this machine) helps
    assert [status_text(_answer(code)) for code in (404, 422, 500)] == ["HTTP 404", "HTTP 422", "HTTP 500"]
    assert refused(f"GET x: {status_text(_answer(401))}") and refused(f"x: {status_text(_answer(403))}")
    assert not refused("GET x: HTTP 403") and not refused("GET x: HTTP 500")


def test_a_network_failure_in_the_service_poll_gets_the_offline_hint(monkeypatch):
    monkeypatch.setattr(bot.sources.github_tarball, "send", functools.partial(bot.http.send, sleep=lambda s: None))
    with make_client(None) as client, pytest.raises(SourceError) as failed:
        current_revision("github:o/enh@main", client, api_url="http://127.0.0.1:1")
    assert str(failed.value).split("\n") == [
        "GET http://127.0.0.1:1/repos/o/enh/commits/main: ConnectError: [Errno 111] Connection refused",
        OFFLINE_HINT,
    ]
