"""The one HTTP client factory: timeouts, retries (tenacity), user agent, token redaction.

Every HTTP call kep-sync makes with httpx goes through :func:`make_client`
and :func:`send`. Retries: 5xx and transport errors with exponential backoff;
403/429 carrying ``Retry-After`` or ``X-RateLimit-Reset`` are waited out when
the wait fits in the budget (GitHub REST docs, "Rate limits for the REST API").
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import httpx
import tenacity

from bot import __version__

USER_AGENT = f"kep-sync/{__version__} (+https://github.com/kep-sync/kep-sync)"
#: Connect/read timeout per request, seconds.
TIMEOUT_SECONDS = 30.0
#: Longest single wait for a rate limit, seconds; longer ones fail the call.
MAX_RATE_LIMIT_WAIT_SECONDS = 120.0
#: Attempts per request (first try included).
MAX_ATTEMPTS = 4

_TOKEN_RE = re.compile(r"(gh[pousr]_[A-Za-z0-9_]{10,}|github_pat_[A-Za-z0-9_]{10,})")
_USERINFO_RE = re.compile(r"(?<=://)[^/@\s]+@")
#: Query parameters that carry secrets (GitHub, GitLab, signed URLs): the value is hidden, the name kept.
_SECRET_PARAM_RE = re.compile(
    r"(?<=[?&;])(token|access_token|private_token|password|key|sig|signature)=[^&#;\s'\"<>]+", re.IGNORECASE)


def redact(text: str) -> str:
    """Hide credentials in ``text``: URL user-info (``https://x:tok@host``), GitHub token shapes and the
    values of query parameters named token, access_token, private_token, password, key, sig or signature
    (``?token=abc`` -> ``?token=***``)."""
    text = _SECRET_PARAM_RE.sub(lambda m: f"{m.group(1)}=***", text)
    return _TOKEN_RE.sub("***", _USERINFO_RE.sub("***@", text))


class RequestCounter:
    """Counts requests sent through clients made with ``counter=`` (an httpx event hook)."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, request: httpx.Request) -> None:
        self.count += 1


def make_client(token: str | None = None, *, counter: RequestCounter | None = None,
                transport: httpx.BaseTransport | None = None) -> httpx.Client:
    """An ``httpx.Client`` with kep-sync's user agent, timeouts and redirects followed.

    ``token`` (from the environment only) is sent as ``Authorization: Bearer``;
    ``transport`` is for tests (respx or ``httpx.MockTransport``).
    """
    headers = {"User-Agent": USER_AGENT}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    hooks = {"request": [counter]} if counter is not None else {}
    return httpx.Client(headers=headers, timeout=TIMEOUT_SECONDS, follow_redirects=True,
                        event_hooks=hooks, transport=transport)


class RetryableStatus(Exception):
    """A response worth retrying (5xx, or a rate limit whose wait fits the budget)."""

    def __init__(self, response: httpx.Response, wait: float):
        super().__init__(f"HTTP {response.status_code}")
        self.response = response
        self.wait = wait


def rate_limit_wait(response: httpx.Response, now: float | None = None) -> float | None:
    """Seconds to wait before retrying a 403/429, from ``Retry-After`` or ``X-RateLimit-Reset``; else ``None``."""
    if response.status_code not in (403, 429):
        return None
    retry_after = response.headers.get("retry-after", "")
    if retry_after.isdigit():
        return float(retry_after)
    reset = response.headers.get("x-ratelimit-reset", "")
    if reset.isdigit() and response.headers.get("x-ratelimit-remaining") == "0":
        return max(0.0, float(reset) - (time.time() if now is None else now))
    return 60.0 if response.status_code == 429 else None


def _wait(state: tenacity.RetryCallState) -> float:
    exc = state.outcome.exception() if state.outcome else None
    if isinstance(exc, RetryableStatus) and exc.wait:
        return exc.wait
    return min(2.0 ** state.attempt_number, 30.0)


def send(client: httpx.Client, method: str, url: str, *, stream: bool = False,
         sleep: Callable[[float], None] = time.sleep, **kwargs) -> httpx.Response:
    """Send a request with retries and return the final response (any status).

    Retried: transport errors and 5xx (backoff 2, 4, 8 s), 403/429 with a
    rate-limit wait up to :data:`MAX_RATE_LIMIT_WAIT_SECONDS`; at most
    :data:`MAX_ATTEMPTS` attempts. With ``stream=True`` the caller must close
    the response. Raises ``httpx.HTTPError`` when the transport keeps failing.
    """

    def attempt() -> httpx.Response:
        request = client.build_request(method, url, **kwargs)
        response = client.send(request, stream=stream)
        wait = rate_limit_wait(response)
        if response.status_code >= 500 or (wait is not None and wait <= MAX_RATE_LIMIT_WAIT_SECONDS):
            response.close()
            raise RetryableStatus(response, wait or 0.0)
        return response

    def log_retry(state: tenacity.RetryCallState) -> None:
        from bot.log import get_logger  # bot.log imports this module

        exc = state.outcome.exception() if state.outcome else None
        reason = f"HTTP {exc.response.status_code}" if isinstance(exc, RetryableStatus) else type(exc).__name__
        get_logger().warning("retrying request", method=method, url=redact(url), reason=reason,
                             attempt=state.attempt_number, wait_seconds=state.next_action.sleep if state.next_action
                             else None)

    retrying = tenacity.Retrying(
        retry=tenacity.retry_if_exception_type((RetryableStatus, httpx.TransportError)),
        stop=tenacity.stop_after_attempt(MAX_ATTEMPTS),
        wait=_wait,
        sleep=sleep,
        before_sleep=log_retry,
        reraise=True,
    )
    try:
        return retrying(attempt)
    except RetryableStatus as exc:
        return exc.response
