"""``bot.http``: retries of ``send``, rate-limit waits, client settings, and ``redact``."""

from __future__ import annotations

import httpx
import pytest

from bot import http as bot_http
from bot.http import (
    MAX_ATTEMPTS,
    USER_AGENT,
    RequestCounter,
    make_client,
    rate_limit_wait,
    send,
)
from bot.redact import redact
from tests.sourcesutil import (
    TOKEN,
    ChunkedStream,
    SleepRecorder,
    client_for,
)

pytestmark = pytest.mark.usefixtures("_isolated_git")


# -- bot.http: send (retries), rate limits, redact --------------------


def scripted(*responses):
    """A handler that plays ``responses`` in order (a Response, an exception class, or a status int)."""
    queue = list(responses)
    seen: list[httpx.Request] = []

    def handler(request):
        seen.append(request)
        item = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(item, type) and issubclass(item, Exception):
            raise item("boom", request=request)
        if isinstance(item, int):
            return httpx.Response(item, text=f"status {item}")
        return item

    handler.seen = seen
    return handler


def test_send_retries_502_then_succeeds():
    handler = scripted(502, httpx.Response(200, text="ok"))
    sleep = SleepRecorder()
    counter = RequestCounter()
    with client_for(handler, counter=counter) as client:
        response = send(client, "GET", "https://api.example/x", sleep=sleep)
    assert (response.status_code, response.text) == (200, "ok")
    assert sleep.calls == [2.0]
    assert len(handler.seen) == 2
    assert counter.count == 2


def test_send_backs_off_exponentially_and_returns_the_last_5xx():
    handler = scripted(503)
    sleep = SleepRecorder()
    with client_for(handler) as client:
        response = send(client, "GET", "https://api.example/x", sleep=sleep)
    assert response.status_code == 503
    assert response.text == "status 503"
    assert len(handler.seen) == MAX_ATTEMPTS == 4
    assert sleep.calls == [2.0, 4.0, 8.0]


def test_send_honours_retry_after_on_429():
    handler = scripted(httpx.Response(429, headers={"Retry-After": "7"}), httpx.Response(200, text="ok"))
    sleep = SleepRecorder()
    with client_for(handler) as client:
        response = send(client, "GET", "https://api.example/x", sleep=sleep)
    assert response.status_code == 200
    assert sleep.calls == [7.0]


def test_send_honours_rate_limit_reset_on_403(monkeypatch):
    monkeypatch.setattr(bot_http.time, "time", lambda: 1_000_000.0)
    limited = httpx.Response(403, headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1000045"})
    handler = scripted(limited, httpx.Response(200, text="ok"))
    sleep = SleepRecorder()
    with client_for(handler) as client:
        response = send(client, "GET", "https://api.example/x", sleep=sleep)
    assert response.status_code == 200
    assert sleep.calls == [45.0]


def test_send_gives_up_at_once_when_the_wait_is_too_long():
    handler = scripted(httpx.Response(429, headers={"Retry-After": "3600"}), 200)
    sleep = SleepRecorder()
    with client_for(handler) as client:
        response = send(client, "GET", "https://api.example/x", sleep=sleep)
    assert response.status_code == 429
    assert sleep.calls == []
    assert len(handler.seen) == 1


@pytest.mark.parametrize("status", [200, 301, 400, 401, 403, 404, 422])
def test_send_does_not_retry_other_statuses(status):
    handler = scripted(status, 200)
    sleep = SleepRecorder()
    with make_client(transport=httpx.MockTransport(handler), token=None) as client:
        client.follow_redirects = False
        response = send(client, "GET", "https://api.example/x", sleep=sleep)
    assert response.status_code == status
    assert sleep.calls == []
    assert len(handler.seen) == 1


def test_send_retries_transport_errors_then_raises():
    handler = scripted(httpx.ConnectError)
    sleep = SleepRecorder()
    with client_for(handler) as client:
        with pytest.raises(httpx.ConnectError):
            send(client, "GET", "https://api.example/x", sleep=sleep)
    assert len(handler.seen) == MAX_ATTEMPTS
    assert sleep.calls == [2.0, 4.0, 8.0]


def test_send_recovers_from_transport_errors():
    handler = scripted(httpx.ReadTimeout, httpx.ConnectError, httpx.Response(200, text="ok"))
    sleep = SleepRecorder()
    with client_for(handler) as client:
        assert send(client, "GET", "https://api.example/x", sleep=sleep).text == "ok"
    assert sleep.calls == [2.0, 4.0]


def test_send_passes_request_options_and_streams():
    handler = scripted(500, httpx.Response(200, stream=ChunkedStream(b"abcdef", chunk=2)))
    sleep = SleepRecorder()
    with client_for(handler) as client:
        response = send(
            client,
            "POST",
            "https://api.example/x",
            stream=True,
            sleep=sleep,
            headers={"Accept": "text/plain"},
            params={"q": "1"},
            content=b"body",
        )
        try:
            assert list(response.iter_bytes()) == [b"ab", b"cd", b"ef"]
        finally:
            response.close()
    first, second = handler.seen
    assert str(second.url) == "https://api.example/x?q=1"
    assert second.method == "POST"
    assert second.headers["Accept"] == "text/plain"
    assert second.headers["User-Agent"] == USER_AGENT
    assert second.content == b"body"
    assert sleep.calls == [2.0]


def test_make_client_headers_and_settings():
    with make_client(TOKEN) as client:
        assert client.headers["Authorization"] == f"Bearer {TOKEN}"
        assert client.headers["User-Agent"] == USER_AGENT
        assert client.follow_redirects is True
        assert client.timeout.read == bot_http.TIMEOUT_SECONDS
    with make_client() as client:
        assert "Authorization" not in client.headers
    assert USER_AGENT.startswith("kep-sync/")


@pytest.mark.parametrize(
    ("status", "headers", "expected"),
    [
        (429, {"Retry-After": "12"}, 12.0),
        (403, {"Retry-After": "0"}, 0.0),
        (429, {}, None),  # no usable wait: the caller's normal backoff
        (429, {"Retry-After": "Thu, 01 Jan 1970 00:17:10 GMT"}, 30.0),  # HTTP-date, now=1000
        (429, {"Retry-After": "Thu, 01 Jan 1970 00:10:00 GMT"}, 0.0),  # a past date
        (429, {"Retry-After": "Thu, 01 Jan 1970 00:17:10"}, 30.0),  # no zone: UTC
        (429, {"Retry-After": "-1"}, 0.0),
        (429, {"Retry-After": " 7 "}, 7.0),
        (429, {"Retry-After": "abc"}, None),
        (429, {"Retry-After": "1.5"}, None),
        (429, {"Retry-After": ""}, None),
        (429, {"Retry-After": "9" * 400}, 86400.0),  # capped, never inf
        (429, {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, 86400.0),
        (429, {"Retry-After": "abc", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1030"}, 30.0),
        (403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "9" * 400}, 86400.0),
        (403, {}, None),
        (403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1030"}, 30.0),
        (403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "900"}, 0.0),
        (403, {"X-RateLimit-Remaining": "3", "X-RateLimit-Reset": "1030"}, None),
        (429, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1100"}, 100.0),
        (200, {"Retry-After": "5"}, None),
        (503, {"Retry-After": "5"}, None),
    ],
)
def test_rate_limit_wait(status, headers, expected):
    assert rate_limit_wait(httpx.Response(status, headers=headers), now=1000.0) == expected


@pytest.mark.parametrize(
    ("retry_after", "waits"),
    [
        ("-1", [0.0]),  # clamped: retry at once
        ("abc", [2.0]),  # unparseable = absent: the normal backoff, not a fixed minute
        ("1.5", [2.0]),
        ("0", [0.0]),
    ],
)
def test_send_waits_out_a_429_by_its_retry_after(retry_after, waits):
    answers = iter([httpx.Response(429, headers={"Retry-After": retry_after}), httpx.Response(200, text="ok")])
    client = make_client(transport=httpx.MockTransport(lambda request: next(answers)))
    slept = []
    assert bot_http.send(client, "GET", "https://h.test/a", sleep=slept.append).text == "ok"
    assert slept == waits


def test_send_returns_a_429_whose_wait_is_over_the_budget_at_once():
    answers = iter([httpx.Response(429, headers={"Retry-After": "9" * 400})])
    client = make_client(transport=httpx.MockTransport(lambda request: next(answers)))
    slept = []
    assert bot_http.send(client, "GET", "https://h.test/a", sleep=slept.append).status_code == 429
    assert slept == []


@pytest.mark.parametrize(
    ("retry_after", "waits"), [("-1", [0.0]), ("abc", [2.0]), ("1.5", [2.0]), ("Thu, 01 Jan 1970 00:00:00 GMT", [0.0])]
)
def test_github_calls_wait_out_a_429_by_its_retry_after(retry_after, waits):
    from github import GithubException

    from bot.publish.auth import call_with_retry

    answers = iter([GithubException(429, {"message": "slow down"}, {"retry-after": retry_after}), "done"])

    def call():
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    slept = []
    assert call_with_retry("list pulls", call, sleep=slept.append) == "done"
    assert slept == waits


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        (
            {"retry-after": "9" * 400},
            "GitHub API: list pulls: HTTP 429 slow down (rate limited; the wait of 86400s is over the budget)",
        ),
        (
            {"retry-after": "abc"},
            "GitHub API: list pulls: HTTP 429 slow down (rate limited; still limited after retrying)",
        ),
    ],
)
def test_github_rate_limit_failures_say_why_in_readable_seconds(headers, message):
    from github import GithubException

    from bot.publish.auth import MAX_ATTEMPTS, GitHubApiError, call_with_retry

    calls = []

    def call():
        calls.append(1)
        raise GithubException(429, {"message": "slow down"}, headers)

    slept = []
    with pytest.raises(GitHubApiError) as info:
        call_with_retry("list pulls", call, sleep=slept.append)
    assert str(info.value) == message
    assert len(calls) == (1 if "86400" in message else MAX_ATTEMPTS)
    assert slept == ([] if "86400" in message else [2.0, 4.0, 8.0, 16.0])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            f"https://x-access-token:{TOKEN}@github.com/kubernetes/enhancements.git",
            "https://***@github.com/kubernetes/enhancements.git",
        ),
        ("https://user@github.com/o/r", "https://***@github.com/o/r"),
        ("ssh://git@github.com/o/r.git", "ssh://***@github.com/o/r.git"),
        (f"token {TOKEN} leaked", "token *** leaked"),
        ("gho_abcdefghij1234 ghu_ABCDEFGHIJ ghs_0123456789 ghr_x_y_z_1234567", "*** *** *** ***"),
        ("github_pat_11AAAAAAA0_abcdefghijklmnopqrstuvwxyz end", "*** end"),
        ("ghp_short", "ghp_short"),
        ("https://github.com/kubernetes/enhancements", "https://github.com/kubernetes/enhancements"),
        ("file:///tmp/a@b/enh", "file:///tmp/a@b/enh"),
        ("mail me at someone@example.com", "mail me at someone@example.com"),
        ("https://u:SECRET@host/x.git?token=SECRET1234q", "https://***@host/x.git?token=***"),
        ("https://h/p?a=1&access_token=abc&b=2", "https://h/p?a=1&access_token=***&b=2"),
        ("https://h/p?private_token=x#frag", "https://h/p?private_token=***#frag"),
        ("GET https://h/p?password=hunter2;key=k1 failed", "GET https://h/p?password=***;key=*** failed"),
        (
            "https://blob.example/t.gz?sv=1&sig=a%2Bb&signature=zz'",
            "https://blob.example/t.gz?sv=1&sig=***&signature=***'",
        ),
        ("https://h/p?TOKEN=upper&Key=mixed", "https://h/p?TOKEN=***&Key=***"),
        ("https://h/p?monkey=1&tokens=2&key_id=3&token=", "https://h/p?monkey=1&tokens=2&key_id=3&token="),
        ("token=bare-not-a-query", "token=bare-not-a-query"),
        ("", ""),
        ("https://bob:s3cr@t-pass@host/x", "https://***@host/x"),
        ("https://user:p@ss@w0rd@github.com/x", "https://***@github.com/x"),
        (
            "'https://a:b@c@h:9/r.git' and https://d:e@f@g?q=1#x end",
            "'https://***@h:9/r.git' and https://***@g?q=1#x end",
        ),
        ("https://h/p@q/r then mail@x.org", "https://h/p@q/r then mail@x.org"),
        ("https://h?x=a@b and https://h#a@b", "https://h?x=a@b and https://h#a@b"),
        (
            f"fatal: unable to access 'https://bot:{TOKEN}@127.0.0.1:9/x/': Failed",
            "fatal: unable to access 'https://***@127.0.0.1:9/x/': Failed",
        ),
    ],
)
def test_redact(text, expected):
    assert redact(text) == expected
