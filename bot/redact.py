"""Secret redaction for every text kep-sync prints, logs or stores: one rule, shared by every writer.

Two layers: by value (every credential the environment holds, :data:`SECRET_ENV`, and every value passed to
:func:`add_secret`, such as an App installation token or a private key read from a file), then by shape
(URL user-info, GitHub token prefixes, secret query parameters), for credentials kep-sync was never told of.
"""

from __future__ import annotations

import os
import re
from urllib.parse import quote

#: Environment variables whose values are credentials (see :mod:`bot.publish.auth` and :mod:`bot.cli.main`).
SECRET_ENV = ("GITHUB_TOKEN", "GH_TOKEN", "KEP_SYNC_TOKEN", "KEP_SYNC_APP_PRIVATE_KEY")
#: A shorter value (or line of one) is not redacted by value: it would hide ordinary words and numbers.
MIN_SECRET_CHARS = 8

_TOKEN_RE = re.compile(r"(gh[pousr]_[A-Za-z0-9_]{10,}|github_pat_[A-Za-z0-9_]{10,})")
#: URL user-info: everything between ``://`` and the LAST ``@`` before the host ends (``/ ? #`` or whitespace), so a
#: password holding ``@`` (``bob:s3cr@t-pass@host``) is hidden whole (RFC 3986 3.2.1: the host follows the last ``@``).
_USERINFO_RE = re.compile(r"(?<=://)[^/?#\s]*@")
#: Query parameters that carry secrets (GitHub, GitLab, signed URLs): the value is hidden, the name kept.
_SECRET_PARAM_RE = re.compile(
    r"(?<=[?&;])(token|access_token|private_token|password|key|sig|signature)=[^&#;\s'\"<>]+", re.IGNORECASE
)

_added: set[str] = set()


def add_secret(value: str) -> None:
    """Redact ``value`` (and its variants, :func:`secret_variants`) by value from now on in this process."""
    if value:
        _added.add(value)


def secret_variants(value: str) -> set[str]:
    """The forms in which ``value`` may reach a text: as is, stripped, with its whitespace removed, each
    line of a multi-line value, escaped as ``repr`` shows it and percent-encoded; each of at least
    :data:`MIN_SECRET_CHARS` characters."""
    forms = {value, value.strip(), "".join(value.split()), *(line.strip() for line in value.splitlines())}
    forms |= {repr(f)[1:-1] for f in list(forms)} | {quote(f, safe="") for f in list(forms)}
    return {f for f in forms if len(f) >= MIN_SECRET_CHARS}


def secret_values() -> list[str]:
    """Every credential known now (:data:`SECRET_ENV` and :func:`add_secret`), in all its variants, longest first."""
    values = {os.environ.get(name, "") for name in SECRET_ENV} | _added
    return sorted({form for value in values if value for form in secret_variants(value)}, key=len, reverse=True)


def redact_values(text: str) -> str:
    """``text`` with every known credential (:func:`secret_values`) replaced by ``***``."""
    for value in secret_values():
        if value in text:
            text = text.replace(value, "***")
    return text


def redact(text: str) -> str:
    """Hide credentials in ``text``: every known credential by value (:func:`redact_values`), then URL user-info
    up to the last ``@`` before the host (``https://x:t@k@host`` -> ``https://***@host``), GitHub token shapes and
    the values of query parameters named token, access_token, private_token, password, key, sig or signature
    (``?token=abc`` -> ``?token=***``)."""
    text = _SECRET_PARAM_RE.sub(lambda m: f"{m.group(1)}=***", redact_values(text))
    return _TOKEN_RE.sub("***", _USERINFO_RE.sub("***@", text))


def url_credentials(url: str) -> list[str]:
    """The credentials a configured URL (or ``--enhancements`` value) carries: its user-info (``user:password``
    and the part after the ``:``) and the values of its secret query parameters (as :func:`redact` names them)."""
    found = [m.group(0)[:-1] for m in _USERINFO_RE.finditer(url)]
    found += [part.split(":", 1)[1] for part in found if ":" in part]
    found += [m.group(0).split("=", 1)[1] for m in _SECRET_PARAM_RE.finditer(url)]
    return [value for value in found if value]


def add_url_secrets(*urls: str) -> None:
    """Redact the credentials of every URL in ``urls`` (:func:`url_credentials`) by value from now on, so no text
    kep-sync writes through :func:`redact_values` or :func:`redact` (logs, standard output, state, reports, the
    bot's pull request section, the cache's problems) can carry them."""
    for url in urls:
        for value in url_credentials(url):
            add_secret(value)


def without_userinfo(url: str) -> str:
    """``url`` with its user-info removed (``https://x:t@host/r`` -> ``https://host/r``); other text unchanged."""
    return _USERINFO_RE.sub("", url)


def header_problem(name: str, value: str) -> str:
    """Why the credential ``value`` (named ``name``, e.g. ``GITHUB_TOKEN``) cannot be sent in an HTTP header,
    never quoting it; ``""`` when it can (visible ASCII, no space: what a token is)."""
    if any(c in "\r\n" for c in value):
        return f"{name} contains a newline, which an HTTP header cannot carry (strip it from the secret)"
    if value != value.strip():
        return f"{name} starts or ends with whitespace, which an HTTP header cannot carry (strip it from the secret)"
    if not value.isascii():
        return f"{name} contains a character that is not ASCII, which an HTTP header cannot carry"
    if not value.isprintable() or " " in value:
        return f"{name} contains a control character or space, which an HTTP header cannot carry"
    return ""


def error_text(exc: BaseException) -> str:
    """The redacted message (``str``) of a failed run: a :class:`~bot.errors.KepSyncError`'s text as
    ``kep-sync: error:`` prints it; any other exception's prefixed with its class name (``KeyError: 'x'``)."""
    from bot.errors import KepSyncError

    return redact(str(exc) if isinstance(exc, KepSyncError) else f"{type(exc).__name__}: {exc}")
