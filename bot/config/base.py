"""What every part of the config shares: the strict base model (unknown keys are errors), how a value or key
is quoted in an error message, and the guard of a cross-field check against keys already found invalid."""

from __future__ import annotations

from collections.abc import Collection

from pydantic import BaseModel, ConfigDict, ValidationInfo


class Strict(BaseModel):
    """A settings section: a key it does not define is an error (``extra="forbid"``)."""

    model_config = ConfigDict(extra="forbid")


#: Longest value quoted in an error message, characters; a longer one is cut and ends with "…".
MAX_SHOWN = 80


def shown(value: object) -> str:
    """``repr(value)`` for an error message, cut to :data:`MAX_SHOWN` characters plus ``…`` (a 200 KB
    string or an expanded alias is named, not printed). Never walks more of ``value`` than it shows
    for a str; other values are repr'd with :func:`reprlib.repr`'s bounds."""
    import reprlib

    if isinstance(value, str):
        text = repr(value[: MAX_SHOWN + 1])
    else:
        bounded = reprlib.Repr()
        bounded.maxstring = bounded.maxother = MAX_SHOWN
        text = bounded.repr(value)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "…"


def shown_key(key: str) -> str:
    """A config key for an error message: control characters escaped (``\\x1b``), cut like :func:`shown`."""
    text = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in key[: MAX_SHOWN + 1])
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "…"


def overlaps(key: str, dropped: Collection[str]) -> bool:
    """True when the dotted ``key`` is, holds or lies under one of the ``dropped`` keys (:class:`bot.config.load.Checked`)."""
    return any(key_within(key, d) or key_within(d, key) for d in dropped)


def key_within(key: str, outer: str) -> bool:
    """True when the dotted ``key`` is ``outer`` or lies under it (``wiki.pages`` within ``wiki``)."""
    return key == outer or key.startswith(outer + ".")


def sibling(info: ValidationInfo, key: str):
    """The validated top-level section holding the dotted ``key`` (``wiki.pages`` -> ``wiki``), or ``None``
    when it is invalid or :func:`bot.config.load.collect_config` dropped ``key`` (a cross-field check then skips it)."""
    if overlaps(key, (info.context or {}).get("dropped", ())):
        return None
    return info.data.get(key.split(".")[0])
