"""The one HTTP client factory: timeouts, retries (tenacity), user agent, token redaction.

Every HTTP call kep-sync makes with httpx goes through :func:`make_client`
and :func:`send`. Retries: 5xx and transport errors with exponential backoff;
403/429 carrying ``Retry-After`` or ``X-RateLimit-Reset`` are waited out when
the wait fits in the budget (GitHub REST docs, "Rate limits for the REST API").
"""

from __future__ import annotations

import datetime
import email.utils
import functools
import os
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from bot import __version__
from bot.errors import ConfigError
from bot.redact import header_problem, redact

if TYPE_CHECKING:  # httpx and tenacity load on first use: a run without a network source never needs them
    import ssl

    import httpx
    import tenacity

USER_AGENT = f"kep-sync/{__version__} (+https://github.com/kep-sync/kep-sync)"
#: Connect/read timeout per request, seconds.
TIMEOUT_SECONDS = 30.0
#: Longest single wait for a rate limit, seconds; longer ones fail the call.
MAX_RATE_LIMIT_WAIT_SECONDS = 120.0
#: Longest wait a rate-limit header is believed for, seconds (a day); larger values are capped to it.
MAX_HINT_SECONDS = 86400.0
#: Attempts per request (first try included).
MAX_ATTEMPTS = 4


def sendable_etag(value: str) -> str:
    """``value`` when it can be sent back as ``If-None-Match``, else ``""`` (treat as no ETag).

    httpx encodes header values as ASCII and refuses anything else, and a header value cannot
    hold control characters; so only printable ASCII (0x20-0x7E) passes, surrounding spaces stripped.
    """
    value = value.strip()
    return value if value.isascii() and value.isprintable() else ""


class RequestCounter:
    """Counts requests sent through clients made with ``counter=`` (an httpx event hook); PyGithub's
    authentication calls it with ``None`` for each request it sends."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, request: httpx.Request | None) -> None:
        self.count += 1


def make_client(
    token: str | None = None, *, counter: RequestCounter | None = None, transport: httpx.BaseTransport | None = None
) -> httpx.Client:
    """An ``httpx.Client`` with kep-sync's user agent, timeouts and redirects followed.

    ``token`` (``GITHUB_TOKEN``, from the environment only) is sent as ``Authorization: Bearer``;
    ``transport`` is for tests (respx or ``httpx.MockTransport``). Raises :class:`ConfigError` (without the
    token) before any request when the token cannot go in a header (:func:`bot.redact.header_problem`).
    """
    import httpx

    headers = {"User-Agent": USER_AGENT}
    if token and header_problem("GITHUB_TOKEN", token):
        raise ConfigError(header_problem("GITHUB_TOKEN", token))
    if token:
        headers["Authorization"] = f"Bearer {token}"
    tls = (
        tls_context(os.environ.get("SSL_CERT_FILE", ""), os.environ.get("SSL_CERT_DIR", ""))
        if transport is None
        else True
    )
    return httpx.Client(
        headers=headers,
        timeout=TIMEOUT_SECONDS,
        follow_redirects=True,
        event_hooks={"request": [counter]} if counter is not None else {},
        transport=transport,
        verify=tls,
    )


@contextmanager
def client_or_new(
    client: httpx.Client | None, token: str | None = None, *, counter: RequestCounter | None = None
) -> Iterator[httpx.Client]:
    """``client`` when given (left open for its owner), else a :func:`make_client` with ``token`` and
    ``counter`` that is closed on leaving the block."""
    if client is not None:
        yield client
        return
    own = make_client(token, counter=counter)
    try:
        yield own
    finally:
        own.close()


@functools.cache
def tls_context(cert_file: str, cert_dir: str) -> ssl.SSLContext:
    """httpx's default TLS context (certifi's CA bundle, or the ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` named in the
    environment: the arguments, so that a changed variable gets a context of its own), made once a process and
    shared by every client: loading the CA bundle costs each new client about 50 ms of CPU otherwise."""
    import httpx

    return httpx.create_ssl_context()


class RetryableStatus(Exception):
    """A response worth retrying (5xx, or a rate limit whose wait fits the budget); ``wait`` is the
    rate-limit wait in seconds, ``None`` for the normal backoff."""

    def __init__(self, response: httpx.Response, wait: float | None):
        super().__init__(f"HTTP {response.status_code}")
        self.response = response
        self.wait = wait


def backoff_seconds(attempt: int) -> float:
    """The normal backoff before retry ``attempt`` (1-based): 2, 4, 8, 16, then 30 seconds."""
    return min(2.0**attempt, 30.0)


def parse_retry_after(value: str, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (RFC 9110 section 10.2.3), or ``None`` when unparseable.

    ``value``: delta-seconds (``120``) or an HTTP-date (``Wed, 21 Oct 2015 07:28:00 GMT``, read with
    :func:`email.utils.parsedate_to_datetime`; a date without a zone is UTC) measured from ``now``
    (Unix seconds, default the clock). Negative numbers and past dates give 0; anything over
    :data:`MAX_HINT_SECONDS` is capped to it, so no caller sees ``inf``. Decimals (``1.5``) and other
    text are not delta-seconds: ``None``, as if the header were absent.
    """
    value = value.strip()
    if re.fullmatch(r"-?[0-9]+", value):
        seconds = float(value)  # a huge number is inf here and capped below
    else:
        try:
            when = email.utils.parsedate_to_datetime(value)
            if when.tzinfo is None:
                when = when.replace(tzinfo=datetime.UTC)
            seconds = when.timestamp() - (time.time() if now is None else now)
        except (TypeError, ValueError, OverflowError, IndexError):
            return None
    return min(max(seconds, 0.0), MAX_HINT_SECONDS)


def rate_limit_wait(response: httpx.Response, now: float | None = None) -> float | None:
    """Seconds to wait before retrying a 403/429, from ``Retry-After`` or ``X-RateLimit-Reset``; else ``None``.

    ``Retry-After`` is read by :func:`parse_retry_after`; ``X-RateLimit-Reset`` (Unix seconds) counts
    only with ``X-RateLimit-Remaining: 0``. Both are clamped to ``[0, MAX_HINT_SECONDS]``. ``None``
    when neither gives a usable wait: a 429 is then retried with :func:`backoff_seconds` by the callers,
    a 403 (a plain permission error) is not retried.
    """
    if response.status_code not in (403, 429):
        return None
    now = time.time() if now is None else now
    wait = parse_retry_after(response.headers.get("retry-after", ""), now)
    if wait is not None:
        return wait
    reset = response.headers.get("x-ratelimit-reset", "").strip()
    if reset.isdigit() and response.headers.get("x-ratelimit-remaining") == "0":
        return min(max(float(reset) - now, 0.0), MAX_HINT_SECONDS)
    return None


#: What a ``401`` answer to a request that sent ``GITHUB_TOKEN`` means (GitHub REST docs: "Bad credentials").
TOKEN_REFUSED = "GitHub refused the token in GITHUB_TOKEN: revoked, expired or mistyped? set a valid token"


def status_text(response: httpx.Response) -> str:
    """``HTTP CODE`` for an answer that is not the one asked for; for the two that no network and no retry
    can fix, also what they mean: ``HTTP 401 (GitHub refused the token ...)`` (:data:`TOKEN_REFUSED`; without
    a token sent, that GitHub asks for one) and, for a ``403`` that is no rate limit (:func:`rate_limit_wait`
    finds no wait), ``HTTP 403 (GitHub refused access ...)``: the token lacks a permission or an
    organization's SAML SSO authorization. :func:`refused` recognizes both in a message."""
    code = response.status_code
    try:
        sent = "authorization" in response.request.headers
    except RuntimeError:  # a response built without a request (tests)
        sent = False
    if code == 401:
        return f"HTTP 401 ({TOKEN_REFUSED if sent else 'GitHub asks for credentials: set GITHUB_TOKEN'})"
    if code == 403 and rate_limit_wait(response) is None:
        why = (
            "the token in GITHUB_TOKEN lacks a permission this needs, or an organization's SAML SSO has not "
            "authorized it"
            if sent
            else "set GITHUB_TOKEN to a token that may read it"
        )
        return f"HTTP 403 (GitHub refused access: {why})"
    return f"HTTP {code}"


def refused(text: str) -> bool:
    """True when ``text`` (an error message) holds a refusal :func:`status_text` wrote: the credentials, not
    the network, are what to fix."""
    return bool(re.search(r"\bHTTP 40[13] \(GitHub (refused|asks)", text))


def _wait(state: tenacity.RetryCallState) -> float:
    exc = state.outcome.exception() if state.outcome else None
    if isinstance(exc, RetryableStatus) and exc.wait is not None:
        return exc.wait
    return backoff_seconds(state.attempt_number)


def send(
    client: httpx.Client,
    method: str,
    url: str,
    *,
    stream: bool = False,
    sleep: Callable[[float], None] = time.sleep,
    **kwargs,
) -> httpx.Response:
    """Send a request with retries and return the final response (any status).

    Retried: transport errors, 5xx and a 429 without a usable wait (backoff 2, 4, 8 s),
    403/429 with a rate-limit wait up to :data:`MAX_RATE_LIMIT_WAIT_SECONDS`; at most
    :data:`MAX_ATTEMPTS` attempts. With ``stream=True`` the caller must close
    the response. Raises ``httpx.HTTPError`` when the transport keeps failing.
    """

    import httpx
    import tenacity

    def attempt() -> httpx.Response:
        request = client.build_request(method, url, **kwargs)
        response = client.send(request, stream=stream)
        wait = rate_limit_wait(response)
        if (
            response.status_code >= 500
            or (response.status_code == 429 and wait is None)
            or (wait is not None and wait <= MAX_RATE_LIMIT_WAIT_SECONDS)
        ):
            response.close()
            raise RetryableStatus(response, wait)
        return response

    def log_retry(state: tenacity.RetryCallState) -> None:
        import structlog  # configured by bot.log; not imported here, so neither module imports the other

        exc = state.outcome.exception() if state.outcome else None
        reason = f"HTTP {exc.response.status_code}" if isinstance(exc, RetryableStatus) else type(exc).__name__
        structlog.get_logger().warning(
            "retrying request",
            method=method,
            url=redact(url),
            reason=reason,
            attempt=state.attempt_number,
            wait_seconds=state.next_action.sleep if state.next_action else None,
        )

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
