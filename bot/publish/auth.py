"""A PyGithub client for the wiki repository: credentials from the environment, request counting, retries.

Credentials (environment only, never configuration, never logged):
``GITHUB_TOKEN`` (a personal access token or the Actions token), or a GitHub
App: ``KEP_SYNC_APP_ID`` plus ``KEP_SYNC_APP_PRIVATE_KEY`` (PEM text) or
``KEP_SYNC_APP_PRIVATE_KEY_FILE`` (path). For an App, the installation for
the wiki repository is looked up (``GET /repos/{owner}/{repo}/installation``)
and an installation token is minted for the run; its commits are verified.

Every call goes through :meth:`GitHubSession.call`: 5xx and connection errors
are retried with backoff; 403/429 with ``Retry-After`` or ``X-RateLimit-Reset``
are waited out when the wait fits the budget (GitHub REST docs, "Rate limits
for the REST API"); then :class:`GitHubApiError` is raised with a clear message.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import github
import httpx
import jwt
import requests
import tenacity
from github import Auth, GithubException, GithubIntegration

from bot.errors import ConfigError, PublishError
from bot.fileread import SECRET_BYTES, read_regular_text
from bot.http import MAX_RATE_LIMIT_WAIT_SECONDS, USER_AGENT, RequestCounter, backoff_seconds, rate_limit_wait
from bot.log import get_logger
from bot.publish import pacing
from bot.redact import add_secret, header_problem, redact

#: Attempts per API call (first try included).
MAX_ATTEMPTS = 5
#: Total seconds one API call may spend waiting between attempts.
RETRY_BUDGET_SECONDS = 300.0
#: Seconds between write requests of the whole process (GitHub's advice against secondary rate limits;
#: :mod:`bot.publish.pacing` paces the writes of every client of the process together).
SECONDS_BETWEEN_WRITES = 1.0
#: Page size for list calls (one request lists the bot's pull requests).
PER_PAGE = 100

T = TypeVar("T")


class GitHubApiError(PublishError):
    """A GitHub API call failed for good; ``status`` is the HTTP status (0 for a connection error), ``limited``
    True when it was a rate limit (a 403 or 429 with a rate-limit header) still in force after the retries."""

    def __init__(self, message: str, status: int = 0, limited: bool = False):
        super().__init__(message)
        self.status, self.limited = status, limited


class _Counted:
    """Mixin for a PyGithub :class:`~github.Auth.Auth`: counts every request it authenticates and tells the
    process-wide write pacer (:mod:`bot.publish.pacing`) this client's ``pause`` (seconds between writes)."""

    counter: RequestCounter | None = None
    pause: float = SECONDS_BETWEEN_WRITES

    def authentication(self, headers: dict) -> None:
        if self.counter is not None:
            self.counter(None)
        pacing.set_interval(self.pause)
        super().authentication(headers)  # type: ignore[misc]  # a mixin: the Auth class it joins defines it


class _CountedToken(_Counted, Auth.Token):
    pass


class _CountedAppAuth(_Counted, Auth.AppAuth):
    pass


class _Anonymous(Auth.Auth):
    """No ``Authorization`` header (read-only access to public repositories)."""

    token_type = token = ""

    def authentication(self, headers: dict) -> None:
        pass


class _CountedAnonymous(_Counted, _Anonymous):
    pass


def _retry_wait(exc: BaseException | None, attempt: int) -> float | None:
    """Seconds to wait before retrying after ``exc``; ``None`` when it is not worth retrying.

    Connection errors, 5xx and a 429 without a usable rate-limit header: :func:`bot.http.backoff_seconds`
    of ``attempt``; a 403/429 with one: :func:`bot.http.rate_limit_wait` (never negative, capped).
    """
    if isinstance(exc, (requests.ConnectionError, requests.Timeout)):
        return backoff_seconds(attempt)
    if not isinstance(exc, GithubException):
        return None
    if exc.status >= 500:
        return backoff_seconds(attempt)
    headers = {k: str(v) for k, v in (exc.headers or {}).items()}
    wait = rate_limit_wait(httpx.Response(exc.status, headers=headers))
    return backoff_seconds(attempt) if wait is None and exc.status == 429 else wait


#: What a ``401`` answer to the publishing session means: its credentials, not the network, are what to fix.
CREDENTIALS_REFUSED = (
    "GitHub refused the credentials: the token in GITHUB_TOKEN, or the GitHub App's (KEP_SYNC_APP_ID and its "
    "private key), is revoked, expired or mistyped"
)


def _describe(what: str, exc: BaseException) -> str:
    if isinstance(exc, GithubException):
        data = exc.data if isinstance(exc.data, dict) else {}
        detail = "; ".join(
            str(e.get("message") or e.get("code") or e) if isinstance(e, dict) else str(e)
            for e in data.get("errors") or []
        )
        message = data.get("message") or str(exc.data or "")
        wait = _retry_wait(exc, 1)
        hint = ""
        if exc.status == 401:
            hint = f" ({CREDENTIALS_REFUSED})"
        if exc.status in (403, 429) and wait is not None:
            hint = (
                f" (rate limited; the wait of {wait:.0f}s is over the budget)"
                if wait > MAX_RATE_LIMIT_WAIT_SECONDS
                else " (rate limited; still limited after retrying)"
            )
        return redact(f"GitHub API: {what}: HTTP {exc.status} {message}{': ' + detail if detail else ''}{hint}")
    return redact(f"GitHub API: {what}: {type(exc).__name__}: {exc}")


class GitHubSession(NamedTuple):
    """A PyGithub client plus the retrying :meth:`call`; ``token_kind`` is ``token``, ``app`` or ``none``;
    ``login``: the login the session acts as when known without a request (an App: ``SLUG[bot]``, from its
    installation's ``app_slug``), else ``""`` (a token's user: ``GET /user``)."""

    client: github.Github
    sleep: Callable[[float], None]
    token_kind: str
    login: str = ""

    def call(
        self, what: str, fn: Callable[..., T], *args: Any, recover: Callable[[], T | None] | None = None, **kwargs: Any
    ) -> T:
        """``fn(*args, **kwargs)`` with retries; raises :class:`GitHubApiError` naming ``what`` on failure.
        ``recover``: for a write that must not be repeated, see :func:`call_with_retry`."""
        return call_with_retry(what, fn, *args, sleep=self.sleep, recover=recover, **kwargs)


def call_with_retry(
    what: str,
    fn: Callable[..., T],
    *args: Any,
    sleep: Callable[[float], None] = time.sleep,
    recover: Callable[[], T | None] | None = None,
    **kwargs: Any,
) -> T:
    """Run one API call with the retry policy of this module; ``sleep`` is injectable for tests.

    ``recover``: for a write GitHub may have carried out although its answer was lost (a 5xx or a dropped
    connection after the pull request, ref or comment was created): before repeating such an attempt, ``recover()``
    looks for the result of the earlier attempt (the pull request by head branch, the ref by name, the
    comment by its text) and, when it finds it, returns it instead of writing again (which would fail
    with 422 or make a duplicate).
    """
    maybe_done = False  # the last attempt may have been carried out: a 5xx or a lost connection

    def attempt() -> T:
        nonlocal maybe_done
        if maybe_done and recover is not None:
            found = recover()
            if found is not None:
                get_logger().info("an earlier attempt had succeeded; not repeating it", call=what)
                return found
        try:
            return fn(*args, **kwargs)
        except (GithubException, requests.RequestException) as exc:  # a 4xx (a 429 too) was not carried out
            maybe_done = not isinstance(exc, GithubException) or exc.status >= 500
            raise

    def stop(state: tenacity.RetryCallState) -> bool:
        wait = _retry_wait(state.outcome.exception() if state.outcome else None, state.attempt_number)
        return (
            state.attempt_number >= MAX_ATTEMPTS
            or wait is None
            or wait > MAX_RATE_LIMIT_WAIT_SECONDS
            or state.idle_for + wait > RETRY_BUDGET_SECONDS
        )

    def log_retry(state: tenacity.RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        reason = f"HTTP {exc.status}" if isinstance(exc, GithubException) else type(exc).__name__
        get_logger().warning(
            "retrying request",
            call=what,
            reason=reason,
            attempt=state.attempt_number,
            wait_seconds=state.next_action.sleep if state.next_action else None,
        )

    retrying = tenacity.Retrying(
        retry=tenacity.retry_if_exception(lambda exc: _retry_wait(exc, 1) is not None),
        stop=stop,
        wait=lambda state: (
            _retry_wait(state.outcome.exception() if state.outcome else None, state.attempt_number) or 0.0
        ),
        sleep=sleep,
        before_sleep=log_retry,
        reraise=True,
    )
    try:
        return retrying(attempt)
    except (GithubException, requests.RequestException) as exc:
        limited = isinstance(exc, GithubException) and exc.status in (403, 429) and _retry_wait(exc, 1) is not None
        raise GitHubApiError(_describe(what, exc), getattr(exc, "status", 0), limited) from None


def _private_key(env: Mapping[str, str]) -> str:
    if env.get("KEP_SYNC_APP_PRIVATE_KEY"):
        add_secret(env["KEP_SYNC_APP_PRIVATE_KEY"])
        return env["KEP_SYNC_APP_PRIVATE_KEY"]
    path = env.get("KEP_SYNC_APP_PRIVATE_KEY_FILE", "")
    if not path:
        raise ConfigError(
            "KEP_SYNC_APP_ID is set but neither KEP_SYNC_APP_PRIVATE_KEY nor KEP_SYNC_APP_PRIVATE_KEY_FILE is"
        )
    try:
        key = read_regular_text(Path(path).expanduser(), SECRET_BYTES)
    except OSError as exc:
        raise ConfigError(f"KEP_SYNC_APP_PRIVATE_KEY_FILE: {path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"KEP_SYNC_APP_PRIVATE_KEY_FILE: {path}: not UTF-8 (at byte {exc.start})") from None
    add_secret(key)
    return key


def _key_setting(env: Mapping[str, str]) -> str:
    """The variable the App private key came from, for errors: ``KEP_SYNC_APP_PRIVATE_KEY``, else
    ``KEP_SYNC_APP_PRIVATE_KEY_FILE`` with its path (:func:`_private_key` reads them in that order)."""
    if env.get("KEP_SYNC_APP_PRIVATE_KEY"):
        return "KEP_SYNC_APP_PRIVATE_KEY"
    return f"KEP_SYNC_APP_PRIVATE_KEY_FILE: {env.get('KEP_SYNC_APP_PRIVATE_KEY_FILE', '')}"


def _installation_token(
    api_url: str,
    repo: str,
    app_id: str,
    key: str,
    counter: RequestCounter | None,
    sleep: Callable[[float], None],
    pause: float,
    key_setting: str = "KEP_SYNC_APP_PRIVATE_KEY",
) -> tuple[str, str]:
    """``(installation token, the App's login SLUG[bot])`` for ``repo``."""
    app_auth = _CountedAppAuth(app_id, key)
    app_auth.counter, app_auth.pause = counter, pause
    pacing.install()
    integration = GithubIntegration(
        auth=app_auth,
        base_url=api_url,
        user_agent=USER_AGENT,
        retry=None,
        seconds_between_requests=None,
        seconds_between_writes=None,
    )
    owner, name = repo.split("/", 1)
    try:
        installation = call_with_retry(
            f"find the GitHub App installation for {repo}", integration.get_repo_installation, owner, name, sleep=sleep
        )
    except (ValueError, jwt.PyJWTError) as exc:  # a key PyJWT cannot load; the key itself is never shown
        raise ConfigError(f"{key_setting}: not a usable RSA private key ({type(exc).__name__})") from None
    grant = call_with_retry(
        f"create an installation token for {repo}", integration.get_access_token, installation.id, sleep=sleep
    )
    add_secret(grant.token)
    if header_problem("the installation token", grant.token):
        raise GitHubApiError(
            f"GitHub API: create an installation token for {repo}: "
            + header_problem("the installation token", grant.token)
        )
    return grant.token, f"{installation.app_slug}[bot]" if installation.app_slug else ""


def credentials_problem(env: Mapping[str, str]) -> str:
    """Why ``--publish github`` cannot authenticate with the credentials in ``env``, ``""`` when it can: none set
    (an empty ``GITHUB_TOKEN``, as an empty ``GITHUB_TOKEN_FILE`` leaves it, counts as none), a token an HTTP
    header cannot carry, or ``KEP_SYNC_APP_ID`` without a readable private key. The one check of ``sync`` (through
    :func:`connect`), ``validate`` and ``serve``; reads the key file, never shows a value."""
    if env.get("KEP_SYNC_APP_ID"):
        try:
            _private_key(env)
        except ConfigError as exc:
            return str(exc)
        return ""
    if env.get("GITHUB_TOKEN"):
        return header_problem("GITHUB_TOKEN", env["GITHUB_TOKEN"])
    from_file = env.get("GITHUB_TOKEN_FILE", "")
    return (
        "--publish github needs credentials in the environment: GITHUB_TOKEN, or "
        "KEP_SYNC_APP_ID with KEP_SYNC_APP_PRIVATE_KEY or KEP_SYNC_APP_PRIVATE_KEY_FILE"
        + (f" (GITHUB_TOKEN_FILE {from_file} holds no token: it is empty)" if from_file else "")
    )


def connect(
    api_url: str,
    repo: str,
    env: Mapping[str, str],
    *,
    counter: RequestCounter | None = None,
    sleep: Callable[[float], None] = time.sleep,
    seconds_between_writes: float = SECONDS_BETWEEN_WRITES,
    read_only: bool = False,
) -> GitHubSession:
    """A :class:`GitHubSession` for ``repo`` (``OWNER/NAME``) at ``api_url``, authenticated from ``env``.

    Raises :class:`ConfigError` when no credentials are set (unless
    ``read_only``: then the session is anonymous, ``token_kind`` ``none``,
    enough for a public repository) or the App key is unreadable,
    :class:`GitHubApiError` when the App installation cannot be found. Logs a
    warning when publishing from GitHub Actions with the Actions token, because
    pull requests it opens do not trigger other workflows.
    """
    login = ""
    if env.get("KEP_SYNC_APP_ID"):
        token, login = _installation_token(
            api_url,
            repo,
            env["KEP_SYNC_APP_ID"],
            _private_key(env),
            counter,
            sleep,
            seconds_between_writes,
            _key_setting(env),
        )
        kind = "app"
    elif env.get("GITHUB_TOKEN"):
        token, kind = env["GITHUB_TOKEN"], "token"
        add_secret(token)
        if header_problem("GITHUB_TOKEN", token):
            raise ConfigError(header_problem("GITHUB_TOKEN", token))
        if env.get("GITHUB_ACTIONS") == "true" and token.startswith("ghs_") and not read_only:
            get_logger(component="publish").warning(
                "GITHUB_TOKEN looks like the GitHub Actions token: pull requests it opens or updates do not "
                "trigger other workflows (e.g. CI); use a GitHub App (KEP_SYNC_APP_ID) or a personal access token"
            )
    elif read_only:
        token, kind = "", "none"
    else:
        raise ConfigError(credentials_problem(env))
    auth = _CountedToken(token) if token else _CountedAnonymous()
    auth.counter, auth.pause = counter, seconds_between_writes
    pacing.install()  # writes are paced per process (pacing.PACER), not by each PyGithub client
    client = github.Github(
        auth=auth,
        base_url=api_url,
        user_agent=USER_AGENT,
        retry=None,
        per_page=PER_PAGE,
        seconds_between_requests=None,
        seconds_between_writes=None,
        lazy=True,
    )
    return GitHubSession(client, sleep, kind, login)
