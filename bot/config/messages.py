"""Validation errors in plain words: one ``FILE: key: what is wrong`` line per pydantic error, with a
guess at a mistyped key and the values of credential-like keys left out."""

from __future__ import annotations

import re

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from bot.config.base import shown, shown_key
from bot.config.model import Config, TargetConfig
from bot.redact import redact

#: Plain words for pydantic's error types (``err["type"]``); ``{got}`` is the value given.
_MESSAGES = {
    "model_type": "expected a mapping of settings (key: value lines), got {got}",
    "dict_type": "expected a mapping, got {got}",
    "list_type": "expected a list (one '- item' per line), got {got}",
    "string_type": "expected a text value, got {got}",
    "bool_type": "expected true or false, got {got}",
    "bool_parsing": "expected true or false, got {got}",
    "too_short": "must not be empty",
    "string_too_short": "must not be empty",
    "extra_forbidden": "unknown key (value {got})",
    "missing": "required, missing",
    "int_type": "expected a whole number, got {got}",
    "int_parsing": "expected a whole number, got {got}",
    "int_from_float": "expected a whole number, got {got}",
}


def error_key(loc: tuple) -> str:
    """A pydantic error location as the key a user writes: ``("wiki", "pages", 0)`` -> ``wiki.pages[0]``."""
    key = ""
    for part in loc:
        key += f"[{part}]" if isinstance(part, int) else (f".{part}" if key else str(part))
    return key or "(top level)"


def error_message(err: ErrorDetails) -> str:
    """One pydantic error in plain words, with the value given; no library wording such as
    "Input should be a valid dictionary or instance of ..."."""
    got, kind, ctx = shown(err.get("input")), err["type"], err.get("ctx") or {}
    if kind in _MESSAGES:
        return _MESSAGES[kind].format(got=got)
    if kind == "literal_error":
        return f"{got} is not one of {ctx.get('expected', '')}"
    if kind == "string_pattern_mismatch" and err["loc"][-1:] == ("repo",):
        return f"{got}: expected OWNER/NAME of a GitHub repository"
    if kind == "string_pattern_mismatch" and err["loc"][:1] == ("targets",) and err["loc"][-1:] == ("name",):
        return f"{got}: expected a target name: lower-case letters, digits, '.', '_' and '-', at most 63"
    msg = err["msg"].removeprefix("Value error, ")
    if (
        kind
        in (
            "value_error",
            "http_url",
            "missing_for_publish",
            "not_a_page",
            "coverage_is_a_matrix_page",
            "needs_coverage",
            "pages_overlap",
            "duplicate_target",
            "not_supported",
        )
        or got in msg
    ):
        return msg
    if msg.startswith("Input should be "):  # e.g. greater_than_equal: "expected greater than or equal to 0"
        msg = "expected " + msg.removeprefix("Input should be ")
    return f"{msg}, got {got}"


def config_errors(exc: ValidationError, source: str) -> list[str]:
    """One line per validation error: ``FILE: key: what is wrong``, with list indices as ``wiki.pages[0]``.

    A cross-field check names the key at fault in its error context (``ctx["key"]``).
    """
    lines = []
    for err in exc.errors():
        if err["type"] == "invalid_key":  # pydantic: "Keys should be strings"; the key is the last of loc
            key, message = (
                error_key(err["loc"][:-1]),
                f"the key {shown(err['input'])} is not a name (setting names are text)",
            )
        else:
            key, message = (err.get("ctx") or {}).get("key") or error_key(err["loc"]), error_message(err)
            if err["type"] == "extra_forbidden":
                if _SECRET_KEY_RE.search(str(err["loc"][-1])):
                    message = "unknown key (its value is not shown: credentials come from the environment)"
                    message += did_you_mean(err["loc"])
                else:
                    message = shared_key_message(err) or message + did_you_mean(err["loc"])
        lines.append(redact(f"{source}: {shown_key(key)}: {message}"))
    return lines


#: An unknown key whose name says it may hold a credential: its value is never echoed.

_SECRET_KEY_RE = re.compile(r"token|secret|passw|credential|private|auth|key", re.IGNORECASE)


def shared_key_message(err: ErrorDetails) -> str:
    """For a key under ``targets[I]`` that only the top level may set (a setting every target shares, such as
    ``enhancements`` or ``schedule``): the message saying so, with the value; else ``""``."""
    loc = tuple(err["loc"])
    shared = set(Config.model_fields) - set(TargetConfig.model_fields) - {"targets", "targets_from"}
    if len(loc) == 3 and loc[0] == "targets" and loc[2] in shared:
        return f"shared by every target: set it at the top level, not under a target (value {shown(err.get('input'))})"
    return ""


def known_keys(loc: tuple) -> list[str]:
    """The setting names allowed beside the last part of ``loc`` (a pydantic error location): the fields
    (and their aliases, ``digest.from``) of the section it lies in, list indices skipped; ``[]`` when that is no
    section."""
    import typing

    model: type[BaseModel] | None = Config
    for part in loc[:-1]:
        if isinstance(part, int):  # an index into a list of sections (ignore[0])
            continue
        field = model.model_fields.get(part) if model is not None and isinstance(part, str) else None
        if field is None:
            return []
        kinds = [
            t
            for t in (field.annotation, *typing.get_args(field.annotation))
            if isinstance(t, type) and issubclass(t, BaseModel)
        ]
        model = kinds[0] if kinds else None
    if model is None:
        return []
    return [field.alias or name for name, field in model.model_fields.items()]


def did_you_mean(loc: tuple) -> str:
    """``"; did you mean 'pages'?"`` when the unknown key at the end of ``loc`` is close to a known one
    (:func:`difflib.get_close_matches`, case ignored) and starts with the same letter, else ``""``."""
    import difflib

    if not loc or not isinstance(loc[-1], str) or not loc[-1]:
        return ""
    word = loc[-1].casefold()
    known = [k for k in known_keys(tuple(loc)) if k[:1].casefold() == word[:1]]
    close = difflib.get_close_matches(word, [k.casefold() for k in known], n=1, cutoff=0.6)
    match = next((k for k in known if close and k.casefold() == close[0]), None)
    return f"; did you mean {match!r}?" if match else ""
