"""Token redaction for every text kep-sync prints or logs: one rule, shared by :mod:`bot.http` and :mod:`bot.log`."""

from __future__ import annotations

import re

_TOKEN_RE = re.compile(r"(gh[pousr]_[A-Za-z0-9_]{10,}|github_pat_[A-Za-z0-9_]{10,})")
#: URL user-info: everything between ``://`` and the LAST ``@`` before the host ends (``/ ? #`` or whitespace), so a
#: password holding ``@`` (``bob:s3cr@t-pass@host``) is hidden whole (RFC 3986 3.2.1: the host follows the last ``@``).
_USERINFO_RE = re.compile(r"(?<=://)[^/?#\s]*@")
#: Query parameters that carry secrets (GitHub, GitLab, signed URLs): the value is hidden, the name kept.
_SECRET_PARAM_RE = re.compile(
    r"(?<=[?&;])(token|access_token|private_token|password|key|sig|signature)=[^&#;\s'\"<>]+", re.IGNORECASE)


def redact(text: str) -> str:
    """Hide credentials in ``text``: URL user-info up to the last ``@`` before the host (``https://x:t@k@host``
    -> ``https://***@host``), GitHub token shapes and the
    values of query parameters named token, access_token, private_token, password, key, sig or signature
    (``?token=abc`` -> ``?token=***``)."""
    text = _SECRET_PARAM_RE.sub(lambda m: f"{m.group(1)}=***", text)
    return _TOKEN_RE.sub("***", _USERINFO_RE.sub("***@", text))
